#include "net/http/cors.h"

#include <algorithm>
#include <cctype>

namespace pagedserve::net {
namespace {

bool has(std::span<const std::string> list, std::string_view item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

bool same_ignoring_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

// Every comma-separated name of `requested` is allowed (header names ignore case).
bool headers_allowed(std::span<const std::string> allowed, std::string_view requested) {
  if (has(allowed, "*")) return true;
  while (!requested.empty()) {
    const std::size_t comma = requested.find(',');
    std::string_view name = requested.substr(0, comma);
    while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
    while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
    const bool ok = name.empty() || std::any_of(allowed.begin(), allowed.end(), [&](auto& a) {
                      return same_ignoring_case(a, name);
                    });
    if (!ok) return false;
    if (comma == std::string_view::npos) break;
    requested.remove_prefix(comma + 1);
  }
  return true;
}

std::string joined(std::span<const std::string> items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

}  // namespace

std::optional<std::string> cors_policy::allow_origin(std::string_view origin) const {
  if (!enabled() || origin.empty()) return std::nullopt;
  if (has(origins, "*")) return std::string("*");
  if (has(origins, origin)) return std::string(origin);
  return std::nullopt;
}

preflight_answer answer_preflight(const cors_policy& policy, std::string_view origin,
                                  std::string_view method, std::string_view request_headers) {
  preflight_answer out;
  std::vector<std::string> refused;
  const std::optional<std::string> allowed_origin = policy.allow_origin(origin);
  if (!allowed_origin) refused.emplace_back("origin");
  if (!has(policy.methods, "*") && !has(policy.methods, method)) refused.emplace_back("method");
  if (!headers_allowed(policy.headers, request_headers)) refused.emplace_back("headers");
  if (!refused.empty()) {
    out.status = 400;
    out.error = "Disallowed CORS " + joined(refused);
    return out;
  }
  out.allow_origin = *allowed_origin;
  out.allow_methods = has(policy.methods, "*") ? "DELETE, GET, HEAD, OPTIONS, PATCH, POST, PUT"
                                               : joined(policy.methods);
  out.allow_headers =
      has(policy.headers, "*") ? std::string(request_headers) : joined(policy.headers);
  return out;
}

}  // namespace pagedserve::net
