#include "net/http/router.h"

#include <array>
#include <string>

namespace pagedserve::net {
namespace {

namespace http = boost::beast::http;

std::string_view to_std(boost::beast::string_view s) { return {s.data(), s.size()}; }

struct route_entry {
  std::string_view path;
  http::verb method;
  route r;
};

constexpr std::array<route_entry, 14> routes = {{
    {"/", http::verb::get, route::playground},
    {"/health", http::verb::get, route::health},
    {"/v1/models", http::verb::get, route::models},
    {"/metrics", http::verb::get, route::metrics},
    {"/v1/completions", http::verb::post, route::completions},
    {"/v1/chat/completions", http::verb::post, route::chat_completions},
    {"/v1/embeddings", http::verb::post, route::embeddings},
    {"/v1/responses", http::verb::post, route::responses},
    {"/v1/messages", http::verb::post, route::messages},
    {"/v1/messages/count_tokens", http::verb::post, route::count_tokens},
    {"/v1/stream", http::verb::get, route::stream},
    {"/tokenize", http::verb::post, route::tokenize},
    {"/detokenize", http::verb::post, route::detokenize},
    {"/version", http::verb::get, route::version},
}};

// The routes with a parameter: GET /v1/models/{id}, GET and DELETE /v1/responses/{id} and
// GET /ui/{path}.
constexpr std::string_view k_model_prefix = "/v1/models/";
constexpr std::string_view k_response_prefix = "/v1/responses/";
constexpr std::string_view k_ui_prefix = "/ui/";
constexpr std::array<route_entry, 4> prefix_routes = {{
    {k_model_prefix, http::verb::get, route::model},
    {k_response_prefix, http::verb::get, route::response_get},
    {k_response_prefix, http::verb::delete_, route::response_delete},
    {k_ui_prefix, http::verb::get, route::ui_asset},
}};

// The part of `path` after `prefix`; empty when path does not start with it or ends there.
std::string_view after_prefix(std::string_view path, std::string_view prefix) {
  if (path.size() <= prefix.size() || path.substr(0, prefix.size()) != prefix) return {};
  return path.substr(prefix.size());
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// %XX sequences decoded; a malformed one is kept as it is.
std::string percent_decoded(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size()) {
      const int high = hex_digit(text[i + 1]);
      const int low = hex_digit(text[i + 2]);
      if (high >= 0 && low >= 0) {
        out += static_cast<char>(high * 16 + low);
        i += 2;
        continue;
      }
    }
    out += text[i];
  }
  return out;
}

bool starts_with_ignoring_case(std::string_view text, std::string_view prefix) {
  if (text.size() < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i) {
    const char c = text[i];
    if ((c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c) != prefix[i]) return false;
  }
  return true;
}

bool accepts(const route_entry& entry, http::verb method) {
  return entry.method == method || (method == http::verb::head && entry.method == http::verb::get);
}

std::string allowed_methods(const route_entry& entry) {
  return entry.method == http::verb::get ? "GET, HEAD" : std::string(http::to_string(entry.method));
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

std::optional<std::string_view> request_path(std::string_view target) {
  for (const std::string_view scheme :
       {std::string_view("http://"), std::string_view("https://")}) {
    if (!starts_with_ignoring_case(target, scheme)) continue;
    const std::size_t path = target.find_first_of("/?", scheme.size());
    if (path == std::string_view::npos || target[path] == '?') return "/";
    target.remove_prefix(path);
    break;
  }
  if (target.empty() || target.front() != '/') return std::nullopt;
  return target.substr(0, target.find('?'));
}

route_outcome match_route(http::verb method, std::string_view target) {
  const std::string_view path = request_path(target).value_or(target);
  std::string allow;
  for (const route_entry& entry : routes) {
    if (entry.path != path) continue;
    if (accepts(entry, method)) return entry.r;
    if (!allow.empty()) allow += ", ";
    allow += allowed_methods(entry);
  }
  for (const route_entry& entry : prefix_routes) {
    if (after_prefix(path, entry.path).empty()) continue;
    if (accepts(entry, method)) return entry.r;
    if (!allow.empty()) allow += ", ";
    allow += allowed_methods(entry);
  }
  if (allow.empty()) {
    return route_error{not_found("no route for " + printable_excerpt(path)), {}};
  }
  return route_error{
      method_not_allowed("method " + printable_excerpt(to_std(http::to_string(method))) +
                         " not allowed on " + std::string(path) + " (allowed: " + allow + ")"),
      allow};
}

std::string model_id_of(std::string_view target) {
  return percent_decoded(after_prefix(request_path(target).value_or(target), k_model_prefix));
}

std::string_view response_id_of(std::string_view target) {
  return after_prefix(request_path(target).value_or(target), k_response_prefix);
}

bool anthropic_route(route r) { return r == route::messages || r == route::count_tokens; }

std::string request_authorization(std::string_view authorization, std::string_view x_api_key) {
  if (!authorization.empty() || x_api_key.empty()) return std::string(authorization);
  return "Bearer " + std::string(x_api_key);
}

std::string_view ui_asset_path_of(std::string_view target) {
  return after_prefix(request_path(target).value_or(target), k_ui_prefix);
}

// vLLM's key guards /v1 only; ours guards everything a stranger could learn from or spend
// CPU on (metrics and version included: the playground's dashboard sends the key), except
// the liveness probe and the playground's static files, which the page needs before it can
// ask for the key.
bool needs_api_key(route r) {
  return r != route::health && r != route::playground && r != route::ui_asset;
}

std::optional<api_error> check_api_key(std::string_view api_key, std::string_view authorization) {
  if (api_key.empty()) return std::nullopt;
  constexpr std::string_view scheme = "Bearer ";
  if (authorization.size() > scheme.size() && authorization.substr(0, scheme.size()) == scheme &&
      same_secret(authorization.substr(scheme.size()), api_key)) {
    return std::nullopt;
  }
  return unauthorized(
      authorization.empty()
          ? "missing API key: send Authorization: Bearer <key> (or x-api-key: <key>)"
          : "invalid API key");
}

}  // namespace pagedserve::net
