#pragma once
// cors: the server's CORS policy, as vLLM's --allowed-origins / --allowed-methods /
// --allowed-headers (Starlette's CORSMiddleware without credentials). Off while
// allowed_origins is empty: no CORS headers, OPTIONS stays a 405. On:
//   - an answer to a request whose Origin is allowed carries Access-Control-Allow-Origin
//     ("*" when every origin is, else the origin itself, with Vary: Origin);
//   - a preflight (OPTIONS with Origin and Access-Control-Request-Method) is answered on
//     any path: 200 with the allowed methods and headers and a max age, or 400 naming what
//     is not allowed.

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace pagedserve::net {

// A view of the server's keys allowed_origins, allowed_methods and allowed_headers.
struct cors_policy {
  std::span<const std::string> origins;  // "*": every origin
  std::span<const std::string> methods;  // "*": every method
  std::span<const std::string> headers;  // "*": whatever the preflight asks for

  [[nodiscard]] bool enabled() const { return !origins.empty(); }
  // The Access-Control-Allow-Origin value for `origin` (the request's Origin header), or
  // nothing when it is absent or not allowed.
  [[nodiscard]] std::optional<std::string> allow_origin(std::string_view origin) const;
};

// The answer to a preflight: its status, and on 200 the headers to send.
struct preflight_answer {
  unsigned status = 200;
  std::string error;  // 400: "Disallowed CORS origin, method" and so on
  std::string allow_origin;
  std::string allow_methods;
  std::string allow_headers;
};

[[nodiscard]] preflight_answer answer_preflight(const cors_policy& policy, std::string_view origin,
                                                std::string_view method,
                                                std::string_view request_headers);

}  // namespace pagedserve::net
