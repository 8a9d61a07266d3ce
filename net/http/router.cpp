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

constexpr std::array<route_entry, 9> routes = {{
    {"/health", http::verb::get, route::health},
    {"/v1/models", http::verb::get, route::models},
    {"/metrics", http::verb::get, route::metrics},
    {"/v1/completions", http::verb::post, route::completions},
    {"/v1/chat/completions", http::verb::post, route::chat_completions},
    {"/v1/stream", http::verb::get, route::stream},
    {"/tokenize", http::verb::post, route::tokenize},
    {"/detokenize", http::verb::post, route::detokenize},
    {"/version", http::verb::get, route::version},
}};

// GET /v1/models/{id}: the one route with a parameter.
constexpr std::string_view k_model_prefix = "/v1/models/";
constexpr route_entry k_model_route{k_model_prefix, http::verb::get, route::model};

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
  if (path.size() > k_model_prefix.size() &&
      path.substr(0, k_model_prefix.size()) == k_model_prefix) {
    if (accepts(k_model_route, method)) return k_model_route.r;
    allow = allowed_methods(k_model_route);
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
  const std::string_view path = request_path(target).value_or(target);
  if (path.size() <= k_model_prefix.size() ||
      path.substr(0, k_model_prefix.size()) != k_model_prefix) {
    return "";
  }
  return percent_decoded(path.substr(k_model_prefix.size()));
}

// As health and metrics, the version is public (vLLM's API key guards /v1 only); tokenize
// and detokenize spend engine-side CPU on the tokenizer, so they take the key like /v1.
bool needs_api_key(route r) {
  return r != route::health && r != route::metrics && r != route::version;
}

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
