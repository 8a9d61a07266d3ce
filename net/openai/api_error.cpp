#include "net/openai/api_error.h"

#include <utility>

namespace pagedserve::net {
namespace {

// Every error type we send is one OpenAI documents or sends itself; the official SDKs pick
// their exception class from the HTTP status, so the type only informs humans and logs.
constexpr const char* k_invalid_request = "invalid_request_error";
constexpr const char* k_rate_limit = "rate_limit_error";
constexpr const char* k_server_error = "server_error";

api_error make(unsigned http_status, std::string message, const char* type,
               std::optional<std::string> code = {}) {
  api_error err;
  err.status = http_status;
  err.message = std::move(message);
  err.type = type;
  err.code = std::move(code);
  return err;
}

}  // namespace

api_error bad_request(std::string message, std::optional<std::string> param,
                      std::optional<std::string> code) {
  api_error err = make(400, std::move(message), k_invalid_request, std::move(code));
  err.param = std::move(param);
  return err;
}

api_error not_found(std::string message) {
  return make(404, std::move(message), k_invalid_request);
}

api_error method_not_allowed(std::string message) {
  return make(405, std::move(message), k_invalid_request);
}

// OpenAI answers a bad key with 401, type invalid_request_error and code invalid_api_key.
api_error unauthorized(std::string message) {
  return make(401, std::move(message), k_invalid_request, "invalid_api_key");
}

api_error payload_too_large(std::string message) {
  return make(413, std::move(message), k_invalid_request, "request_too_large");
}

api_error header_too_large(std::string message) {
  return make(431, std::move(message), k_invalid_request, "headers_too_large");
}

api_error request_timeout(std::string message) {
  return make(408, std::move(message), k_invalid_request, "request_timeout");
}

api_error internal_error(std::string message) {
  return make(500, std::move(message), k_server_error);
}

api_error not_implemented(std::string message) {
  return make(501, std::move(message), k_invalid_request, "not_implemented");
}

std::string printable_excerpt(std::string_view text) {
  constexpr std::size_t k_max_bytes = 64;
  std::string out;
  for (const char c : text.substr(0, k_max_bytes)) out += c >= 0x20 && c < 0x7f ? c : '?';
  if (text.size() > k_max_bytes) out += "...";
  return out;
}

api_error to_api_error(const error& err) {
  switch (err.code) {
    case error_code::invalid_argument:
      return bad_request(err.message);
    case error_code::unsupported:  // well-formed but not implemented: still the client's ask
      return bad_request(err.message, {}, "unsupported");
    case error_code::capacity_exceeded:
      return bad_request(err.message, {}, "context_length_exceeded");
    case error_code::overloaded:
      return make(429, err.message, k_rate_limit, "rate_limit_exceeded");
    case error_code::unavailable:
      return make(503, err.message, k_server_error, "service_unavailable");
    case error_code::not_found:
    case error_code::corrupt_data:
    case error_code::io_error:
    case error_code::internal:
      break;
  }
  return internal_error(err.message);
}

namespace {

// `path` is `from` or a path below it ("from.x", "from[2]"): its head becomes `to`.
bool rename_head(std::string& path, std::string_view from, std::string_view to) {
  if (path.compare(0, from.size(), from) != 0) return false;
  if (path.size() > from.size() && path[from.size()] != '.' && path[from.size()] != '[') {
    return false;
  }
  path.replace(0, from.size(), to);
  return true;
}

}  // namespace

api_error renamed_param(api_error err, std::string_view from, std::string_view to) {
  if (!err.param || !rename_head(*err.param, from, to)) return err;
  // The message quotes the field: 'stop', 'messages[1].content'.
  std::string& text = err.message;
  std::size_t open = text.find('\'');
  while (open != std::string::npos) {
    std::size_t close = text.find('\'', open + 1);
    if (close == std::string::npos) break;
    std::string quoted = text.substr(open + 1, close - open - 1);
    if (rename_head(quoted, from, to)) {
      text.replace(open + 1, close - open - 1, quoted);
      close = open + 1 + quoted.size();
    }
    open = text.find('\'', close + 1);
  }
  return err;
}

boost::json::object to_json(const api_error& err) {
  boost::json::object inner;
  inner["message"] = err.message;
  inner["type"] = err.type;
  inner["param"] = err.param ? boost::json::value(*err.param) : boost::json::value(nullptr);
  inner["code"] = err.code ? boost::json::value(*err.code) : boost::json::value(nullptr);
  boost::json::object outer;
  outer["error"] = std::move(inner);
  return outer;
}

std::string to_body(const api_error& err) { return boost::json::serialize(to_json(err)); }

}  // namespace pagedserve::net
