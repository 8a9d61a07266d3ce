#pragma once
// router: method + path → route. Unknown paths are 404, a known path with the wrong method
// is 405 with an Allow header; HEAD is accepted wherever GET is (the session sends GET's
// head without its body). With an API key configured, every route needs it except the
// playground (`/` and `/ui/*`, which hold no data: the page asks for the key) and /health.

#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include <boost/beast/http/verb.hpp>

#include "net/openai/api_error.h"

namespace pagedserve::net {

enum class route {
  health,            // GET /health
  models,            // GET /v1/models
  model,             // GET /v1/models/{id} (the id: model_id_of)
  metrics,           // GET /metrics
  completions,       // POST /v1/completions
  chat_completions,  // POST /v1/chat/completions
  embeddings,        // POST /v1/embeddings
  responses,         // POST /v1/responses (OpenAI's Responses API)
  response_get,      // GET /v1/responses/{id} (the id: response_id_of)
  response_delete,   // DELETE /v1/responses/{id}
  messages,          // POST /v1/messages (Anthropic's Messages API)
  count_tokens,      // POST /v1/messages/count_tokens
  stream,            // GET /v1/stream (WebSocket upgrade)
  tokenize,          // POST /tokenize (vLLM)
  detokenize,        // POST /detokenize (vLLM)
  version,           // GET /version (vLLM)
  playground,        // GET / (the web playground's page, web/static/index.html)
  ui_asset,          // GET /ui/{path} (its scripts, styles, icon: ui_asset_path_of)
};

struct route_error {
  api_error error;
  std::string allow;  // 405: the methods the path accepts
};

using route_outcome = std::variant<route, route_error>;

// The path of a request target: origin-form "/p?q" gives "/p", absolute-form
// "http://host:port/p?q" (RFC 9112 §3.2.2: a server must accept it) gives "/p" ("/" when
// the URL has no path); any other form (asterisk, authority) gives nothing.
[[nodiscard]] std::optional<std::string_view> request_path(std::string_view target);

// `target` is the request target (see request_path; a query string is ignored).
[[nodiscard]] route_outcome match_route(boost::beast::http::verb method, std::string_view target);

// The {id} of GET /v1/models/{id}, percent-decoded; it may hold '/' (hub names such as
// meta-llama/Llama-3.2-1B, which clients send unencoded). Empty for any other target.
[[nodiscard]] std::string model_id_of(std::string_view target);

// The {id} of /v1/responses/{id} (ids are plain: not decoded). Empty for any other target.
[[nodiscard]] std::string_view response_id_of(std::string_view target);

// Whether the route speaks Anthropic's API: its errors take Anthropic's shape.
[[nodiscard]] bool anthropic_route(route r);

// The {path} of GET /ui/{path} (not decoded: asset names are plain). Empty otherwise.
[[nodiscard]] std::string_view ui_asset_path_of(std::string_view target);

[[nodiscard]] bool needs_api_key(route r);
// The 401 error when `authorization` (the header's value) does not carry "Bearer <api_key>";
// nothing when api_key is empty or the key matches.
[[nodiscard]] std::optional<api_error> check_api_key(std::string_view api_key,
                                                     std::string_view authorization);
// The authorization a request carries: its Authorization header, or else its x-api-key
// header as "Bearer <key>" (Anthropic's clients send the key that way).
[[nodiscard]] std::string request_authorization(std::string_view authorization,
                                                std::string_view x_api_key);

}  // namespace pagedserve::net
