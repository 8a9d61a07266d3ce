#include "net/http/request_rules.h"

#include <string>
#include <string_view>
#include <vector>

#include "net/http/header_list.h"
#include "net/http/router.h"

namespace pagedserve::net {
namespace {

namespace http = boost::beast::http;

std::string_view to_std(boost::beast::string_view s) { return {s.data(), s.size()}; }

std::string quoted(std::string_view text) {
  std::string out(1, '\'');
  out.append(printable_excerpt(text)).push_back('\'');
  return out;
}

// RFC 3986 host (reg-name, IPv4, IP-literal) and an optional port: unreserved, pct-encoded,
// sub-delims, ':' and the brackets of an IP-literal. Empty is valid (§3.2: no authority).
bool valid_host_value(std::string_view value) {
  constexpr std::string_view extra = "-._~%!$&'()*+,;=:[]";
  for (const char c : value) {
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (!alnum && extra.find(c) == std::string_view::npos) return false;
  }
  return true;
}

std::optional<api_error> check_host(const http::request_header<>& head) {
  const std::size_t count = head.count(http::field::host);
  if (count == 0 && head.version() >= 11) {
    return bad_request("an HTTP/1.1 request needs a Host header");
  }
  if (count > 1) return bad_request("a request may carry only one Host header");
  if (count == 1 && !valid_host_value(to_std(head[http::field::host]))) {
    return bad_request("invalid Host header " + quoted(to_std(head[http::field::host])));
  }
  return std::nullopt;
}

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; };
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

// Every coding of every Transfer-Encoding field, in order (empty list elements skipped).
std::vector<std::string_view> transfer_codings(const http::request_header<>& head) {
  std::vector<std::string_view> codings;
  const auto [first, last] = head.equal_range(http::field::transfer_encoding);
  for (auto it = first; it != last; ++it) {
    for (const std::string_view coding : list_elements(to_std(it->value()))) {
      codings.push_back(coding);
    }
  }
  return codings;
}

std::optional<api_error> check_transfer_encoding(const http::request_header<>& head) {
  if (head.count(http::field::transfer_encoding) == 0) return std::nullopt;
  if (head.version() < 11) {
    return bad_request("Transfer-Encoding is not allowed in an HTTP/1.0 request");
  }
  const std::vector<std::string_view> codings = transfer_codings(head);
  std::size_t num_chunked = 0;
  for (const std::string_view coding : codings) {
    if (equals_ignoring_case(coding, "chunked")) ++num_chunked;
  }
  if (codings.empty() || num_chunked != 1 || !equals_ignoring_case(codings.back(), "chunked")) {
    return bad_request("Transfer-Encoding must end with chunked, applied once");
  }
  for (const std::string_view coding : codings) {
    if (!equals_ignoring_case(coding, "chunked")) {
      return not_implemented("transfer coding " + quoted(coding) +
                             " is not supported (only chunked is)");
    }
  }
  return std::nullopt;
}

bool is_base64_digit(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' ||
         c == '/';
}

// 16 bytes in base64 are 22 digits and "==" (the last digit's low 4 bits are padding).
bool is_base64_of_16_bytes(std::string_view key) {
  constexpr std::size_t k_digits = 22;
  if (key.size() != k_digits + 2 || key.substr(k_digits) != "==") return false;
  for (const char c : key.substr(0, k_digits)) {
    if (!is_base64_digit(c)) return false;
  }
  return true;
}

}  // namespace

std::optional<api_error> check_websocket_key(const http::request_header<>& head) {
  if (head.count(http::field::sec_websocket_key) != 1) {
    return bad_request("a WebSocket upgrade needs exactly one Sec-WebSocket-Key header");
  }
  const std::string_view key = trim_ows(to_std(head[http::field::sec_websocket_key]));
  if (!is_base64_of_16_bytes(key)) {
    return bad_request("Sec-WebSocket-Key " + quoted(key) + " is not base64 of 16 bytes");
  }
  return std::nullopt;
}

std::optional<api_error> check_request_head(const http::request_header<>& head) {
  if (!request_path(to_std(head.target()))) {
    return bad_request("the request target " + quoted(to_std(head.target())) +
                       " is neither a path nor an absolute http(s) URL");
  }
  if (auto broken = check_host(head)) return broken;
  return check_transfer_encoding(head);
}

}  // namespace pagedserve::net
