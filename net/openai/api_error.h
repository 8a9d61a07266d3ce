#pragma once
// api_error: an OpenAI error object with its HTTP status. Every error a client sees is one
// of these: {"error": {"message", "type", "param", "code"}}.

#include <optional>
#include <string>
#include <string_view>

#include <boost/json.hpp>

#include "common/result.h"

namespace pagedserve::net {

struct api_error {
  unsigned status = 400;
  std::string message;
  std::string type = "invalid_request_error";  // OpenAI's types (see api_error.cpp)
  std::optional<std::string> param;            // the offending field, e.g. "max_tokens"
  std::optional<std::string> code;             // e.g. "context_length_exceeded"
};

[[nodiscard]] api_error bad_request(std::string message, std::optional<std::string> param = {},
                                    std::optional<std::string> code = {});
[[nodiscard]] api_error not_found(std::string message);           // 404
[[nodiscard]] api_error method_not_allowed(std::string message);  // 405
[[nodiscard]] api_error unauthorized(std::string message);        // 401
[[nodiscard]] api_error payload_too_large(std::string message);   // 413
[[nodiscard]] api_error header_too_large(std::string message);    // 431
[[nodiscard]] api_error request_timeout(std::string message);     // 408
[[nodiscard]] api_error internal_error(std::string message);      // 500
[[nodiscard]] api_error not_implemented(std::string message);     // 501

// What a client sent, for a message that quotes it: cut to 64 bytes ("..." after), bytes
// outside printable ASCII as '?', so the error body stays valid UTF-8 and short.
[[nodiscard]] std::string printable_excerpt(std::string_view text);

// The one mapping from engine errors to HTTP (STYLE.md): invalid_argument → 400,
// unsupported → 400 (code "unsupported"), capacity_exceeded → 400 (context_length_exceeded),
// overloaded → 429 (rate_limit_error), unavailable → 503, anything else → 500
// (server_error). docs/openai-api.md lists every status, type and code.
[[nodiscard]] api_error to_api_error(const error& err);

// An error of a translated request (chat_dialect.h) in the words of the API the client
// spoke: `param` (and a path below it, "messages[2].content") renamed from the chat field
// `from` to the client's field `to`, and so are the quoted names in the message.
[[nodiscard]] api_error renamed_param(api_error err, std::string_view from, std::string_view to);

[[nodiscard]] boost::json::object to_json(const api_error& err);  // {"error": {...}}
[[nodiscard]] std::string to_body(const api_error& err);          // serialized to_json

}  // namespace pagedserve::net
