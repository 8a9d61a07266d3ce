#include "net/openai/chat_tool_calls.h"

#include "net/openai/body_reader.h"
#include "runtime/chat/json_value.h"

namespace pagedserve::net {
namespace {

// json.loads(text), or {} where vLLM catches a JSONDecodeError. Nesting is bounded as the
// template's own conversion bounds it.
boost::json::value parse_arguments(boost::json::string_view text) {
  boost::json::parse_options options;
  options.max_depth = max_json_depth;
  boost::system::error_code ec;
  boost::json::value parsed = boost::json::parse(text, ec, {}, options);
  if (ec) return boost::json::object();
  return parsed;
}

std::optional<api_error> prepare_call(boost::json::value& call, const std::string& param) {
  if (!call.is_object()) return invalid_type(param, "an object", call);
  boost::json::value* function = call.get_object().if_contains("function");
  if (function == nullptr || !function->is_object()) {
    return bad_request("'" + param + ".function' must be an object.", param + ".function");
  }
  boost::json::object& fn = function->get_object();
  const boost::json::value* name = fn.if_contains("name");
  if (name == nullptr || !name->is_string()) {
    return bad_request("'" + param + ".function.name' must be a string.", param + ".function.name");
  }
  boost::json::value* arguments = fn.if_contains("arguments");
  if (arguments != nullptr && arguments->is_string()) {
    boost::json::value parsed = parse_arguments(arguments->get_string());
    *arguments = std::move(parsed);
  } else if (arguments == nullptr || !(arguments->is_object() || arguments->is_array())) {
    fn["arguments"] = boost::json::object();
  }
  return std::nullopt;
}

}  // namespace

std::optional<api_error> prepare_tool_calls(boost::json::object& message,
                                            const std::string& param) {
  boost::json::value* calls = message.if_contains("tool_calls");
  if (calls == nullptr) return std::nullopt;
  if (calls->is_null() || (calls->is_array() && calls->get_array().empty())) {
    message.erase("tool_calls");
    return std::nullopt;
  }
  if (!calls->is_array()) return invalid_type(param + ".tool_calls", "an array", *calls);
  boost::json::array& list = calls->get_array();
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string call_param = param + ".tool_calls[" + std::to_string(i) + "]";
    if (auto err = prepare_call(list[i], call_param)) return err;
  }
  return std::nullopt;
}

}  // namespace pagedserve::net
