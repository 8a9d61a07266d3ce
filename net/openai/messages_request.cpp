#include "net/openai/messages_request.h"

#include <array>
#include <string>
#include <string_view>
#include <utility>

#include "net/openai/body_reader.h"

namespace pagedserve::net {
namespace {

namespace json = boost::json;

// vLLM's extensions a Messages body may carry: passed to the chat body unchanged.
constexpr std::array<std::string_view, 11> k_passed_through = {"model",
                                                               "temperature",
                                                               "top_p",
                                                               "top_k",
                                                               "seed",
                                                               "min_p",
                                                               "presence_penalty",
                                                               "frequency_penalty",
                                                               "repetition_penalty",
                                                               "ignore_eos",
                                                               "priority"};

std::string at(const std::string& param, std::size_t i) {
  return param + "[" + std::to_string(i) + "]";
}

// A block's "type" (a string), or an error naming it.
std::variant<std::string_view, api_error> block_type(const json::value& block,
                                                     const std::string& param) {
  if (!block.is_object()) return invalid_type(param, "an object", block);
  const json::value* type = block.get_object().if_contains("type");
  if (type == nullptr || !type->is_string()) {
    return bad_request("'" + param + ".type' must be a string.", param + ".type");
  }
  return std::string_view(type->get_string());
}

// A string, or text blocks joined with "\n" (system prompts and tool_result content).
std::variant<std::string, api_error> text_of(const json::value& content, const std::string& param) {
  if (content.is_string()) return std::string(content.get_string());
  if (!content.is_array()) return invalid_type(param, "a string or an array of blocks", content);
  std::string text;
  const json::array& blocks = content.get_array();
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    auto type = block_type(blocks[i], at(param, i));
    if (auto* err = std::get_if<api_error>(&type)) return std::move(*err);
    if (std::get<std::string_view>(type) != "text") {
      return unsupported(at(param, i) + ".type", "blocks of type '" +
                                                     std::string(std::get<std::string_view>(type)) +
                                                     "' here; only 'text' blocks are accepted");
    }
    auto piece = required_string(blocks[i].get_object(), "text", at(param, i));
    if (auto* err = std::get_if<api_error>(&piece)) return std::move(*err);
    if (i > 0) text += '\n';
    text += std::get<std::string>(piece);
  }
  return text;
}

// An assistant tool_use block as a chat tool call (arguments as JSON text).
std::variant<json::object, api_error> tool_call_of(const json::object& block,
                                                   const std::string& param) {
  auto id = required_string(block, "id", param);
  if (auto* err = std::get_if<api_error>(&id)) return std::move(*err);
  auto name = required_string(block, "name", param);
  if (auto* err = std::get_if<api_error>(&name)) return std::move(*err);
  const json::value* input = block.if_contains("input");
  if (input == nullptr || !input->is_object()) {
    return bad_request("'" + param + ".input' must be an object.", param + ".input");
  }
  return json::object{
      {"id", std::get<std::string>(id)},
      {"type", "function"},
      {"function",
       {{"name", std::get<std::string>(name)}, {"arguments", json::serialize(*input)}}}};
}

// One Messages message as one or more chat messages, appended to `out`.
std::optional<api_error> add_message(const json::value& message, const std::string& param,
                                     json::array& out) {
  if (!message.is_object()) return invalid_type(param, "an object", message);
  const json::object& m = message.get_object();
  auto role = required_string(m, "role", param);
  if (auto* err = std::get_if<api_error>(&role)) return std::move(*err);
  const std::string& r = std::get<std::string>(role);
  if (r != "user" && r != "assistant") {
    return bad_request("'" + param + ".role' must be 'user' or 'assistant'.", param + ".role");
  }
  const json::value* content = m.if_contains("content");
  const std::string content_param = param + ".content";
  if (content == nullptr) return bad_request("'" + content_param + "' is required.", content_param);
  if (content->is_string()) {
    out.push_back(json::object{{"role", r}, {"content", content->get_string()}});
    return std::nullopt;
  }
  if (!content->is_array()) {
    return invalid_type(content_param, "a string or an array of blocks", *content);
  }
  std::string text;
  std::string reasoning;
  json::array calls;
  bool has_text = false;
  const json::array& blocks = content->get_array();
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    const std::string block_param = at(content_param, i);
    auto type = block_type(blocks[i], block_param);
    if (auto* err = std::get_if<api_error>(&type)) return std::move(*err);
    const std::string_view t = std::get<std::string_view>(type);
    const json::object& block = blocks[i].get_object();
    if (t == "text") {
      auto piece = required_string(block, "text", block_param);
      if (auto* err = std::get_if<api_error>(&piece)) return std::move(*err);
      if (has_text) text += '\n';
      text += std::get<std::string>(piece);
      has_text = true;
    } else if (t == "tool_result" && r == "user") {
      auto id = required_string(block, "tool_use_id", block_param);
      if (auto* err = std::get_if<api_error>(&id)) return std::move(*err);
      const json::value* result = block.if_contains("content");
      std::variant<std::string, api_error> result_text = std::string();
      if (result != nullptr && !result->is_null())
        result_text = text_of(*result, block_param + ".content");
      if (auto* err = std::get_if<api_error>(&result_text)) return std::move(*err);
      out.push_back(json::object{{"role", "tool"},
                                 {"tool_call_id", std::get<std::string>(id)},
                                 {"content", std::get<std::string>(result_text)}});
    } else if (t == "tool_use" && r == "assistant") {
      auto call = tool_call_of(block, block_param);
      if (auto* err = std::get_if<api_error>(&call)) return std::move(*err);
      calls.push_back(std::get<json::object>(std::move(call)));
    } else if (t == "thinking" && r == "assistant") {
      auto piece = required_string(block, "thinking", block_param);
      if (auto* err = std::get_if<api_error>(&piece)) return std::move(*err);
      reasoning += std::get<std::string>(piece);
    } else if (t != "redacted_thinking" || r != "assistant") {
      std::string why = "blocks of type ";
      why.append(t).append(" in ").append(r).append(" messages");
      return unsupported(block_param + ".type", why);
    }
  }
  if (r == "user" && !has_text) return std::nullopt;  // tool results alone
  json::object chat{{"role", r}, {"content", std::move(text)}};
  if (!reasoning.empty()) chat["reasoning_content"] = std::move(reasoning);
  if (!calls.empty()) chat["tool_calls"] = std::move(calls);
  out.push_back(std::move(chat));
  return std::nullopt;
}

std::variant<json::array, api_error> chat_messages(body_reader& reader) {
  json::array out;
  if (const json::value* system = reader.find("system")) {
    auto text = text_of(*system, "system");
    if (auto* err = std::get_if<api_error>(&text)) return std::move(*err);
    out.push_back(json::object{{"role", "system"}, {"content", std::get<std::string>(text)}});
  }
  const json::value* messages = reader.find("messages");
  if (messages == nullptr) return bad_request("'messages' is required.", "messages");
  if (!messages->is_array()) return invalid_type("messages", "an array", *messages);
  if (messages->get_array().empty()) {
    return bad_request("'messages' must hold at least one message.", "messages");
  }
  for (std::size_t i = 0; i < messages->get_array().size(); ++i) {
    if (auto err = add_message(messages->get_array()[i], at("messages", i), out)) return *err;
  }
  return out;
}

std::variant<json::array, api_error> chat_tools(const json::value& tools) {
  if (!tools.is_array()) return invalid_type("tools", "an array", tools);
  json::array out;
  for (std::size_t i = 0; i < tools.get_array().size(); ++i) {
    const std::string param = at("tools", i);
    const json::value& tool = tools.get_array()[i];
    if (!tool.is_object()) return invalid_type(param, "an object", tool);
    const json::object& t = tool.get_object();
    if (const json::value* type = t.if_contains("type");
        type != nullptr && !(type->is_string() && type->get_string() == "custom")) {
      return unsupported(param + ".type", "server tools; only client tools (with input_schema)");
    }
    auto name = required_string(t, "name", param);
    if (auto* err = std::get_if<api_error>(&name)) return std::move(*err);
    const json::value* schema = t.if_contains("input_schema");
    if (schema == nullptr || !schema->is_object()) {
      return bad_request("'" + param + ".input_schema' must be an object.",
                         param + ".input_schema");
    }
    json::object function{{"name", std::get<std::string>(name)}, {"parameters", *schema}};
    if (const json::value* d = t.if_contains("description"); d != nullptr && !d->is_null()) {
      if (!d->is_string()) return invalid_type(param + ".description", "a string", *d);
      function["description"] = *d;
    }
    out.push_back(json::object{{"type", "function"}, {"function", std::move(function)}});
  }
  return out;
}

// tool_choice into the chat body's tool_choice and parallel_tool_calls.
std::optional<api_error> add_tool_choice(const json::value& choice, json::object& chat) {
  if (!choice.is_object()) return invalid_type("tool_choice", "an object", choice);
  const json::object& c = choice.get_object();
  auto type = required_string(c, "type", "tool_choice");
  if (auto* err = std::get_if<api_error>(&type)) return std::move(*err);
  const std::string& t = std::get<std::string>(type);
  if (t == "auto" || t == "none") {
    chat["tool_choice"] = t;
  } else if (t == "any") {
    chat["tool_choice"] = "required";
  } else if (t == "tool") {
    auto name = required_string(c, "name", "tool_choice");
    if (auto* err = std::get_if<api_error>(&name)) return std::move(*err);
    chat["tool_choice"] =
        json::object{{"type", "function"}, {"function", {{"name", std::get<std::string>(name)}}}};
  } else {
    return bad_request("'tool_choice.type' must be 'auto', 'any', 'tool' or 'none'.",
                       "tool_choice.type");
  }
  if (const json::value* d = c.if_contains("disable_parallel_tool_use")) {
    if (!d->is_bool())
      return invalid_type("tool_choice.disable_parallel_tool_use", "a boolean", *d);
    chat["parallel_tool_calls"] = !d->get_bool();
  }
  return std::nullopt;
}

std::optional<api_error> add_thinking(const json::value& thinking, json::object& chat) {
  if (!thinking.is_object()) return invalid_type("thinking", "an object", thinking);
  auto type = required_string(thinking.get_object(), "type", "thinking");
  if (auto* err = std::get_if<api_error>(&type)) return std::move(*err);
  const std::string& t = std::get<std::string>(type);
  if (t != "enabled" && t != "disabled") {
    return bad_request("'thinking.type' must be 'enabled' or 'disabled'.", "thinking.type");
  }
  chat["chat_template_kwargs"] = json::object{{"enable_thinking", t == "enabled"}};
  return std::nullopt;
}

// The fields that map one to one, or nearly.
std::optional<api_error> add_plain_fields(body_reader& reader, messages_endpoint endpoint,
                                          json::object& chat) {
  for (const std::string_view key : k_passed_through) {
    if (const json::value* v = reader.find(key)) chat[key] = *v;
  }
  if (endpoint == messages_endpoint::create) {
    const json::value* max_tokens = reader.find("max_tokens");
    if (max_tokens == nullptr) return bad_request("'max_tokens' is required.", "max_tokens");
    chat["max_tokens"] = *max_tokens;
  }
  if (const json::value* stop = reader.find("stop_sequences")) {
    if (!stop->is_array()) return invalid_type("stop_sequences", "an array of strings", *stop);
    chat["stop"] = *stop;
  }
  if (endpoint == messages_endpoint::create && reader.boolean("stream").value_or(false)) {
    chat["stream"] = true;
    chat["stream_options"] = json::object{{"include_usage", true}};
  }
  if (reader.failed()) return reader.error();
  return std::nullopt;
}

}  // namespace

std::variant<json::object, api_error> messages_to_chat_body(const json::value& body,
                                                            messages_endpoint endpoint) {
  if (!body.is_object()) {
    return bad_request("The request body must be a JSON object, got " +
                       std::string(kind_name(body)) + ".");
  }
  body_reader reader(body.get_object());
  json::object chat;
  if (reader.find("model") == nullptr) return bad_request("'model' is required.", "model");
  if (auto err = add_plain_fields(reader, endpoint, chat)) return std::move(*err);
  auto messages = chat_messages(reader);
  if (auto* err = std::get_if<api_error>(&messages)) return std::move(*err);
  chat["messages"] = std::get<json::array>(std::move(messages));
  if (const json::value* tools = reader.find("tools")) {
    auto chat_tool_list = chat_tools(*tools);
    if (auto* err = std::get_if<api_error>(&chat_tool_list)) return std::move(*err);
    if (!std::get<json::array>(chat_tool_list).empty()) {
      chat["tools"] = std::get<json::array>(std::move(chat_tool_list));
    }
  }
  if (const json::value* choice = reader.find("tool_choice")) {
    if (auto err = add_tool_choice(*choice, chat)) return std::move(*err);
  }
  if (const json::value* thinking = reader.find("thinking")) {
    if (auto err = add_thinking(*thinking, chat)) return std::move(*err);
  }
  return chat;
}

parse_outcome parse_messages_request(const json::value& body, const model_context& model,
                                     messages_endpoint endpoint) {
  auto chat = messages_to_chat_body(body, endpoint);
  if (auto* err = std::get_if<api_error>(&chat)) return std::move(*err);
  parse_outcome parsed =
      parse_chat_request(json::value(std::get<json::object>(std::move(chat))), model);
  if (auto* err = std::get_if<api_error>(&parsed)) {
    *err = renamed_param(std::move(*err), "stop", "stop_sequences");
    *err = renamed_param(std::move(*err), "parallel_tool_calls",
                         "tool_choice.disable_parallel_tool_use");
  }
  return parsed;
}

}  // namespace pagedserve::net
