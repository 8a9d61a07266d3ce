#include "net/openai/responses_items.h"

#include <string_view>
#include <utility>

#include "net/openai/body_reader.h"
#include "net/openai/chat_dialect.h"
#include "net/openai/response_ids.h"

namespace pagedserve::net {
namespace {

namespace json = boost::json;

std::string at(std::size_t i) { return "input[" + std::to_string(i) + "]"; }

std::variant<std::string, api_error> text_of(const json::value& content, const std::string& param) {
  if (content.is_string()) return std::string(content.get_string());
  if (!content.is_array())
    return invalid_type(param, "a string or an array of content parts", content);
  std::string text;
  const json::array& parts = content.get_array();
  for (std::size_t j = 0; j < parts.size(); ++j) {
    const std::string part_param = param + "[" + std::to_string(j) + "]";
    if (!parts[j].is_object()) return invalid_type(part_param, "an object", parts[j]);
    auto type = required_string(parts[j].get_object(), "type", part_param);
    if (auto* err = std::get_if<api_error>(&type)) return std::move(*err);
    const std::string& t = std::get<std::string>(type);
    if (t != "input_text" && t != "output_text" && t != "text") {
      return unsupported(part_param + ".type",
                         "content parts of type '" + t + "'; only text parts are accepted");
    }
    auto piece = required_string(parts[j].get_object(), "text", part_param);
    if (auto* err = std::get_if<api_error>(&piece)) return std::move(*err);
    if (j > 0) text += '\n';
    text += std::get<std::string>(piece);
  }
  return text;
}

std::optional<api_error> add_message(const json::object& item, const std::string& param,
                                     json::array& messages) {
  auto role = required_string(item, "role", param);
  if (auto* err = std::get_if<api_error>(&role)) return std::move(*err);
  const std::string& r = std::get<std::string>(role);
  if (r != "user" && r != "assistant" && r != "system" && r != "developer") {
    return bad_request("'" + param + ".role' must be 'user', 'assistant', 'system' or 'developer'.",
                       param + ".role");
  }
  const json::value* content = item.if_contains("content");
  if (content == nullptr)
    return bad_request("'" + param + ".content' is required.", param + ".content");
  auto text = text_of(*content, param + ".content");
  if (auto* err = std::get_if<api_error>(&text)) return std::move(*err);
  messages.push_back(
      json::object{{"role", r}, {"content", std::get<std::string>(std::move(text))}});
  return std::nullopt;
}

// A function_call item joins the assistant message just before it, or starts one.
std::optional<api_error> add_function_call(const json::object& item, const std::string& param,
                                           json::array& messages) {
  auto call_id = required_string(item, "call_id", param);
  if (auto* err = std::get_if<api_error>(&call_id)) return std::move(*err);
  auto name = required_string(item, "name", param);
  if (auto* err = std::get_if<api_error>(&name)) return std::move(*err);
  auto arguments = required_string(item, "arguments", param);
  if (auto* err = std::get_if<api_error>(&arguments)) return std::move(*err);
  json::object call{
      {"id", std::get<std::string>(call_id)},
      {"type", "function"},
      {"function",
       {{"name", std::get<std::string>(name)}, {"arguments", std::get<std::string>(arguments)}}}};
  const bool joins = !messages.empty() && messages.back().is_object() &&
                     messages.back().get_object().at("role") == "assistant";
  if (!joins) messages.push_back(json::object{{"role", "assistant"}, {"content", ""}});
  json::object& assistant = messages.back().get_object();
  if (!assistant.contains("tool_calls")) assistant["tool_calls"] = json::array();
  assistant["tool_calls"].get_array().push_back(std::move(call));
  return std::nullopt;
}

std::optional<api_error> add_call_output(const json::object& item, const std::string& param,
                                         json::array& messages) {
  auto call_id = required_string(item, "call_id", param);
  if (auto* err = std::get_if<api_error>(&call_id)) return std::move(*err);
  const json::value* output = item.if_contains("output");
  if (output == nullptr)
    return bad_request("'" + param + ".output' is required.", param + ".output");
  auto text = text_of(*output, param + ".output");
  if (auto* err = std::get_if<api_error>(&text)) return std::move(*err);
  messages.push_back(json::object{{"role", "tool"},
                                  {"tool_call_id", std::get<std::string>(call_id)},
                                  {"content", std::get<std::string>(std::move(text))}});
  return std::nullopt;
}

std::optional<api_error> add_item(const json::value& value, const std::string& param,
                                  json::array& messages) {
  if (!value.is_object()) return invalid_type(param, "an object", value);
  const json::object& item = value.get_object();
  const json::value* type = item.if_contains("type");
  if (type != nullptr && !type->is_string())
    return invalid_type(param + ".type", "a string", *type);
  const std::string_view t = type != nullptr ? std::string_view(type->get_string()) : "message";
  if (t == "message") return add_message(item, param, messages);
  if (t == "function_call") return add_function_call(item, param, messages);
  if (t == "function_call_output") return add_call_output(item, param, messages);
  if (t == "reasoning") return std::nullopt;
  return unsupported(param + ".type", "input items of type '" + std::string(t) + "'");
}

}  // namespace

std::optional<api_error> add_input_items(const json::value& input, json::array& messages) {
  if (input.is_string()) {
    messages.push_back(json::object{{"role", "user"}, {"content", input.get_string()}});
    return std::nullopt;
  }
  if (!input.is_array()) return invalid_type("input", "a string or an array of items", input);
  for (std::size_t i = 0; i < input.get_array().size(); ++i) {
    if (auto err = add_item(input.get_array()[i], at(i), messages)) return err;
  }
  return std::nullopt;
}

json::object reasoning_item(const std::string& id, std::string text) {
  return {{"id", id},
          {"type", "reasoning"},
          {"summary", json::array()},
          {"content",
           json::array{json::object{{"type", "reasoning_text"}, {"text", std::move(text)}}}}};
}

json::object output_text_part(std::string text) {
  return {{"type", "output_text"}, {"text", std::move(text)}, {"annotations", json::array()}};
}

json::object message_item(const std::string& id, std::string text, std::string_view status) {
  json::array content;
  if (status != "in_progress") content.push_back(output_text_part(std::move(text)));
  return {{"id", id},
          {"type", "message"},
          {"status", status},
          {"role", "assistant"},
          {"content", std::move(content)}};
}

json::object function_call_item(const std::string& id, json::value call_id, json::value name,
                                std::string arguments, std::string_view status) {
  return {{"id", id},
          {"type", "function_call"},
          {"call_id", std::move(call_id)},
          {"name", std::move(name)},
          {"arguments", std::move(arguments)},
          {"status", status}};
}

json::array output_items(const json::object& message) {
  json::array items;
  if (const std::string_view r = string_or_empty(message, "reasoning_content"); !r.empty()) {
    items.push_back(reasoning_item(make_prefixed_id("rs_"), std::string(r)));
  }
  if (const std::string_view text = string_or_empty(message, "content"); !text.empty()) {
    items.push_back(message_item(make_prefixed_id("msg_"), std::string(text), "completed"));
  }
  if (const json::value* calls = message.if_contains("tool_calls");
      calls != nullptr && calls->is_array()) {
    for (const json::value& call : calls->get_array()) {
      const json::object& function = call.at("function").get_object();
      items.push_back(
          function_call_item(make_prefixed_id("fc_"), call.at("id"), function.at("name"),
                             std::string(string_or_empty(function, "arguments")), "completed"));
    }
  }
  return items;
}

json::object message_of_items(const json::array& items) {
  std::string text;
  json::array calls;
  for (const json::value& v : items) {
    const json::object& item = v.get_object();
    const std::string_view type = string_or_empty(item, "type");
    if (type == "message") {
      for (const json::value& part : item.at("content").get_array()) {
        text += string_or_empty(part.get_object(), "text");
      }
    } else if (type == "function_call") {
      calls.push_back(json::object{
          {"id", item.at("call_id")},
          {"type", "function"},
          {"function", {{"name", item.at("name")}, {"arguments", item.at("arguments")}}}});
    }
  }
  json::object message{{"role", "assistant"}, {"content", std::move(text)}};
  if (!calls.empty()) message["tool_calls"] = std::move(calls);
  return message;
}

}  // namespace pagedserve::net
