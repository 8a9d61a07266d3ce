#pragma once
// Errors in the shape Anthropic's Messages API answers them:
//   {"type": "error", "error": {"type": "invalid_request_error", "message": "..."}}
// The type follows the status as Anthropic documents it (400 invalid_request_error, 401
// authentication_error, 403 permission_error, 404 not_found_error, 413 request_too_large,
// 429 rate_limit_error, 5xx api_error; overloaded_error is Anthropic's 529, which we never
// send). Anthropic names the field at the head of the message ("max_tokens: Field
// required"), so the message starts with the api_error's param when it has one.

#include <string>

#include <boost/json.hpp>

#include "net/openai/api_error.h"

namespace pagedserve::net {

[[nodiscard]] std::string_view anthropic_error_type(unsigned status);
[[nodiscard]] boost::json::object to_anthropic_json(const api_error& err);
[[nodiscard]] std::string to_anthropic_body(const api_error& err);

}  // namespace pagedserve::net
