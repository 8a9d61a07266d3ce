#include "net/http/router.h"

#include <array>

namespace pagedserve::net {
namespace {

namespace http = boost::beast::http;

struct route_entry {
  std::string_view path;
  http::verb method;
  route r;
};

constexpr std::array<route_entry, 6> routes = {{
    {"/health", http::verb::get, route::health},
    {"/v1/models", http::verb::get, route::models},
    {"/metrics", http::verb::get, route::metrics},
    {"/v1/completions", http::verb::post, route::completions},
    {"/v1/chat/completions", http::verb::post, route::chat_completions},
    {"/v1/stream", http::verb::get, route::stream},
}};

std::string_view path_of(std::string_view target) {
  const auto query = target.find('?');
  return query == std::string_view::npos ? target : target.substr(0, query);
}

// Compares without an early exit on the first difference (the key is a secret).
bool same_secret(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    diff = static_cast<unsigned char>(
        diff | (static_cast<unsigned char>(a[i]) ^ static_cast<unsigned char>(b[i])));
  }
  return diff == 0;
}

}  // namespace

route_outcome match_route(http::verb method, std::string_view target) {
  const std::string_view path = path_of(target);
  std::string allow;
  for (const route_entry& entry : routes) {
    if (entry.path != path) continue;
    if (entry.method == method) return entry.r;
    if (!allow.empty()) allow += ", ";
    allow += std::string(http::to_string(entry.method));
  }
  if (allow.empty()) {
    return route_error{not_found("no route for " + std::string(path)), {}};
  }
  return route_error{
      method_not_allowed("method " + std::string(http::to_string(method)) + " not allowed on " +
                         std::string(path) + " (allowed: " + allow + ")"),
      allow};
}

bool needs_api_key(route r) { return r != route::health && r != route::metrics; }

std::optional<api_error> check_api_key(std::string_view api_key, std::string_view authorization) {
  if (api_key.empty()) return std::nullopt;
  constexpr std::string_view scheme = "Bearer ";
  if (authorization.size() > scheme.size() && authorization.substr(0, scheme.size()) == scheme &&
      same_secret(authorization.substr(scheme.size()), api_key)) {
    return std::nullopt;
  }
  return unauthorized(authorization.empty() ? "missing API key: send Authorization: Bearer <key>"
                                            : "invalid API key");
}

}  // namespace pagedserve::net
