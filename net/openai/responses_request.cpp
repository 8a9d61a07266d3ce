#include "net/openai/responses_request.h"

#include <array>
#include <string>
#include <string_view>
#include <utility>

#include "net/openai/body_reader.h"
#include "net/openai/responses_items.h"

namespace pagedserve::net {
namespace {

namespace json = boost::json;

constexpr std::array<std::string_view, 14> k_passed_through = {"model",
                                                               "temperature",
                                                               "top_p",
                                                               "parallel_tool_calls",
                                                               "user",
                                                               "seed",
                                                               "top_k",
                                                               "min_p",
                                                               "presence_penalty",
                                                               "frequency_penalty",
                                                               "repetition_penalty",
                                                               "stop",
                                                               "ignore_eos",
                                                               "priority"};

constexpr std::array<std::string_view, 3> k_refused = {"background", "conversation", "prompt"};

std::variant<json::array, api_error> chat_tools(const json::value& tools) {
  if (!tools.is_array()) return invalid_type("tools", "an array", tools);
  json::array out;
  for (std::size_t i = 0; i < tools.get_array().size(); ++i) {
    const std::string param = "tools[" + std::to_string(i) + "]";
    const json::value& tool = tools.get_array()[i];
    if (!tool.is_object()) return invalid_type(param, "an object", tool);
    const json::object& t = tool.get_object();
    const json::value* type = t.if_contains("type");
    if (type == nullptr || !type->is_string() || type->get_string() != "function") {
      return unsupported(param + ".type", "tools other than function tools");
    }
    const json::value* name = t.if_contains("name");
    if (name == nullptr || !name->is_string()) {
      return bad_request("'" + param + ".name' must be a string.", param + ".name");
    }
    json::object function{{"name", *name}};
    const json::value* parameters = t.if_contains("parameters");
    function["parameters"] =
        parameters != nullptr && !parameters->is_null()
            ? *parameters
            : json::value(json::object{{"type", "object"}, {"properties", json::object()}});
    if (const json::value* d = t.if_contains("description"); d != nullptr && !d->is_null()) {
      function["description"] = *d;
    }
    out.push_back(json::object{{"type", "function"}, {"function", std::move(function)}});
  }
  return out;
}

std::variant<json::value, api_error> chat_tool_choice(const json::value& choice) {
  if (choice.is_string()) return choice;
  if (!choice.is_object()) return invalid_type("tool_choice", "a string or an object", choice);
  const json::object& c = choice.get_object();
  const json::value* type = c.if_contains("type");
  const json::value* name = c.if_contains("name");
  if (type == nullptr || !type->is_string() || type->get_string() != "function") {
    return unsupported("tool_choice.type", "tool choices other than 'function'");
  }
  if (name == nullptr || !name->is_string()) {
    return bad_request("'tool_choice.name' must be a string.", "tool_choice.name");
  }
  return json::value(json::object{{"type", "function"}, {"function", {{"name", *name}}}});
}

std::variant<json::value, api_error> chat_response_format(const json::value& text) {
  if (!text.is_object()) return invalid_type("text", "an object", text);
  const json::value* format = text.get_object().if_contains("format");
  if (format == nullptr || format->is_null()) return json::value(nullptr);
  if (!format->is_object()) return invalid_type("text.format", "an object", *format);
  const json::object& f = format->get_object();
  const json::value* type = f.if_contains("type");
  if (type == nullptr || !type->is_string()) {
    return bad_request("'text.format.type' must be a string.", "text.format.type");
  }
  const std::string_view t = type->get_string();
  if (t == "text") return json::value(nullptr);
  if (t == "json_object") return json::value(json::object{{"type", "json_object"}});
  if (t != "json_schema") {
    return bad_request("'text.format.type' must be 'text', 'json_object' or 'json_schema'.",
                       "text.format.type");
  }
  json::object schema{{"name", f.contains("name") ? f.at("name") : json::value("response")}};
  if (const json::value* s = f.if_contains("schema")) schema["schema"] = *s;
  if (const json::value* s = f.if_contains("strict")) schema["strict"] = *s;
  return json::value(json::object{{"type", "json_schema"}, {"json_schema", std::move(schema)}});
}

// tools, tool_choice, text and reasoning into the chat body; echoed as given.
std::optional<api_error> add_shaping_fields(body_reader& reader, json::object& chat,
                                            json::object& echo) {
  if (const json::value* tools = reader.find("tools")) {
    auto list = chat_tools(*tools);
    if (auto* err = std::get_if<api_error>(&list)) return std::move(*err);
    if (!std::get<json::array>(list).empty())
      chat["tools"] = std::get<json::array>(std::move(list));
    echo["tools"] = *tools;
  }
  if (const json::value* choice = reader.find("tool_choice")) {
    auto c = chat_tool_choice(*choice);
    if (auto* err = std::get_if<api_error>(&c)) return std::move(*err);
    chat["tool_choice"] = std::get<json::value>(std::move(c));
    echo["tool_choice"] = *choice;
  }
  if (const json::value* text = reader.find("text")) {
    auto format = chat_response_format(*text);
    if (auto* err = std::get_if<api_error>(&format)) return std::move(*err);
    if (!std::get<json::value>(format).is_null())
      chat["response_format"] = std::get<json::value>(format);
    echo["text"] = *text;
  }
  if (const json::value* reasoning = reader.find("reasoning")) {
    if (!reasoning->is_object()) return invalid_type("reasoning", "an object", *reasoning);
    if (const json::value* effort = reasoning->get_object().if_contains("effort");
        effort != nullptr && !effort->is_null()) {
      if (!effort->is_string()) return invalid_type("reasoning.effort", "a string", *effort);
      chat["chat_template_kwargs"] = json::object{{"reasoning_effort", *effort}};
    }
    echo["reasoning"] = *reasoning;
  }
  return std::nullopt;
}

std::optional<api_error> add_budget_and_stream(body_reader& reader, json::object& chat,
                                               json::object& echo) {
  for (const std::string_view key : k_passed_through) {
    if (const json::value* v = reader.find(key)) chat[key] = echo[key] = *v;
  }
  if (const json::value* budget = reader.find("max_output_tokens")) {
    chat["max_completion_tokens"] = echo["max_output_tokens"] = *budget;
  }
  if (const json::value* top = reader.find("top_logprobs")) {
    chat["logprobs"] = true;
    chat["top_logprobs"] = echo["top_logprobs"] = *top;
  }
  if (reader.boolean("stream").value_or(false)) {
    chat["stream"] = true;
    chat["stream_options"] = json::object{{"include_usage", true}};
  }
  if (const auto truncation = reader.string("truncation")) {
    if (*truncation != "auto" && *truncation != "disabled") {
      reader.fail(bad_request("'truncation' must be 'auto' or 'disabled'.", "truncation"));
    }
    echo["truncation"] = *truncation;
  }
  if (const json::value* metadata = reader.find("metadata")) echo["metadata"] = *metadata;
  if (reader.failed()) return reader.error();
  return std::nullopt;
}

// previous_response_id's conversation, then this input.
std::optional<api_error> build_conversation(body_reader& reader, const response_store& store,
                                            responses_request& out) {
  if (const auto previous = reader.string("previous_response_id")) {
    auto stored = store.get(*previous);
    if (!stored) {
      api_error err = not_found("Previous response with id '" + *previous + "' not found.");
      err.param = "previous_response_id";
      return err;
    }
    out.conversation = std::move(stored->conversation);
    out.echo["previous_response_id"] = *previous;
  }
  if (reader.failed()) return reader.error();
  const json::value* input = reader.find("input");
  if (input == nullptr) return bad_request("'input' is required.", "input");
  return add_input_items(*input, out.conversation);
}

}  // namespace

std::variant<responses_request, api_error> parse_responses_request(const json::value& body,
                                                                   const model_context& model,
                                                                   const response_store& store) {
  if (!body.is_object()) {
    return bad_request("The request body must be a JSON object, got " +
                       std::string(kind_name(body)) + ".");
  }
  body_reader reader(body.get_object());
  for (const std::string_view key : k_refused) {  // `false` asks for nothing: accepted
    const json::value* v = reader.find(key);
    if (v != nullptr && !(v->is_bool() && !v->get_bool())) {
      return unsupported(std::string(key), "by this server");
    }
  }
  responses_request out;
  json::object chat;
  out.store = reader.boolean("store").value_or(true);
  const auto instructions = reader.string("instructions");
  if (reader.failed()) return reader.error();
  if (auto err = add_budget_and_stream(reader, chat, out.echo)) return std::move(*err);
  if (auto err = add_shaping_fields(reader, chat, out.echo)) return std::move(*err);
  if (auto err = build_conversation(reader, store, out)) return std::move(*err);
  json::array messages;
  if (instructions) {
    messages.push_back(json::object{{"role", "system"}, {"content", *instructions}});
    out.echo["instructions"] = *instructions;
  }
  for (const json::value& m : out.conversation) messages.push_back(m);
  if (messages.empty()) return bad_request("'input' holds no message.", "input");
  chat["messages"] = std::move(messages);
  parse_outcome parsed = parse_chat_request(json::value(std::move(chat)), model);
  if (auto* err = std::get_if<api_error>(&parsed)) {
    api_error e = renamed_param(std::move(*err), "max_completion_tokens", "max_output_tokens");
    e = renamed_param(std::move(e), "response_format", "text.format");
    return renamed_param(std::move(e), "messages", "input");
  }
  out.chat = std::get<api_request>(std::move(parsed));
  return out;
}

}  // namespace pagedserve::net
