#include "net/openai/anthropic_error.h"

namespace pagedserve::net {

std::string_view anthropic_error_type(unsigned status) {
  switch (status) {
    case 401:
      return "authentication_error";
    case 403:
      return "permission_error";
    case 404:
      return "not_found_error";
    case 413:
      return "request_too_large";
    case 429:
      return "rate_limit_error";
    default:
      return status >= 500 ? "api_error" : "invalid_request_error";
  }
}

boost::json::object to_anthropic_json(const api_error& err) {
  std::string message = err.message;
  if (err.param && !err.param->empty()) message = *err.param + ": " + message;
  return {{"type", "error"},
          {"error", {{"type", anthropic_error_type(err.status)}, {"message", std::move(message)}}}};
}

std::string to_anthropic_body(const api_error& err) {
  return boost::json::serialize(to_anthropic_json(err));
}

}  // namespace pagedserve::net
