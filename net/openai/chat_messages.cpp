#include "net/openai/chat_messages.h"

#include <array>
#include <string>
#include <string_view>

#include "net/openai/body_reader.h"
#include "net/openai/chat_tool_calls.h"

namespace pagedserve::net {
namespace {

constexpr std::array<std::string_view, 5> k_roles = {"system", "user", "assistant", "tool",
                                                     "developer"};

bool known_role(std::string_view role) {
  for (const std::string_view r : k_roles) {
    if (role == r) return true;
  }
  return false;
}

// Text parts joined with "\n"; any other part type is a 400 naming the part.
std::variant<std::string, api_error> join_text_parts(const boost::json::array& parts,
                                                     const std::string& param) {
  std::string text;
  for (std::size_t j = 0; j < parts.size(); ++j) {
    const std::string part_param = param + "[" + std::to_string(j) + "]";
    if (!parts[j].is_object()) return invalid_type(part_param, "an object", parts[j]);
    const boost::json::object& part = parts[j].get_object();
    const boost::json::value* type = part.if_contains("type");
    if (type == nullptr || !type->is_string()) {
      return bad_request("'" + part_param + ".type' must be a string.", part_param + ".type");
    }
    if (type->get_string() != "text") {
      return unsupported(part_param + ".type", "content parts of type '" +
                                                   std::string(type->get_string()) +
                                                   "'; only 'text' parts are accepted");
    }
    const boost::json::value* part_text = part.if_contains("text");
    if (part_text == nullptr || !part_text->is_string()) {
      return bad_request("'" + part_param + ".text' must be a string.", part_param + ".text");
    }
    if (j > 0) text += '\n';
    text.append(part_text->get_string());
  }
  return text;
}

// The message's content as one string. Only an assistant message may leave it out (or null):
// OpenAI allows that beside tool_calls; the template then sees "".
std::variant<std::string, api_error> read_content(const boost::json::object& message,
                                                  std::string_view role, const std::string& param) {
  const std::string content_param = param + ".content";
  const boost::json::value* content = message.if_contains("content");
  if (content == nullptr || content->is_null()) {
    if (role == "assistant") return std::string();
    return bad_request("'" + content_param + "' is required for role '" + std::string(role) + "'.",
                       content_param);
  }
  if (content->is_string()) return std::string(content->get_string());
  if (content->is_array()) return join_text_parts(content->get_array(), content_param);
  return invalid_type(content_param, "a string or an array of content parts", *content);
}

std::variant<boost::json::object, api_error> normalize_message(const boost::json::value& value,
                                                               std::size_t i) {
  const std::string param = "messages[" + std::to_string(i) + "]";
  if (!value.is_object()) return invalid_type(param, "an object", value);
  const boost::json::object& message = value.get_object();
  const boost::json::value* role = message.if_contains("role");
  if (role == nullptr || !role->is_string()) {
    return bad_request("'" + param + ".role' must be a string.", param + ".role");
  }
  if (!known_role(role->get_string())) {
    return bad_request("Invalid value for '" + param + ".role': '" +
                           std::string(role->get_string()) +
                           "' is not one of system, user, assistant, tool, developer.",
                       param + ".role");
  }
  if (const boost::json::value* name = message.if_contains("name");
      name != nullptr && !name->is_null() && !name->is_string()) {
    return invalid_type(param + ".name", "a string", *name);
  }
  auto content = read_content(message, role->get_string(), param);
  if (auto* err = std::get_if<api_error>(&content)) return std::move(*err);
  boost::json::object normalized = message;
  normalized["content"] = std::get<std::string>(std::move(content));
  if (role->get_string() == "assistant") {
    if (auto err = prepare_tool_calls(normalized, param)) return std::move(*err);
  }
  return normalized;
}

}  // namespace

std::variant<boost::json::array, api_error> normalize_messages(const boost::json::value& messages) {
  if (!messages.is_array()) return invalid_type("messages", "an array", messages);
  const boost::json::array& list = messages.get_array();
  if (list.empty()) return bad_request("'messages' must contain at least one message.", "messages");
  boost::json::array normalized;
  normalized.reserve(list.size());
  for (std::size_t i = 0; i < list.size(); ++i) {
    auto message = normalize_message(list[i], i);
    if (auto* err = std::get_if<api_error>(&message)) return std::move(*err);
    normalized.emplace_back(std::get<boost::json::object>(std::move(message)));
  }
  return normalized;
}

}  // namespace pagedserve::net
