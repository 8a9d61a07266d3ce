#include "net/http/http_responses.h"

#include <cstdio>
#include <sstream>

#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>

namespace pagedserve::net {
namespace {

namespace http = boost::beast::http;

constexpr std::string_view server_name = "pagedserve";

// Access-Control-Allow-Origin, and Vary: Origin when the answer depends on the origin.
template <class Message>
void set_cors(Message& res, std::string_view origin) {
  if (origin.empty()) return;
  res.set(http::field::access_control_allow_origin, origin);
  if (origin != "*") res.set(http::field::vary, "Origin");
}

}  // namespace

std::string make_response(const response_head& head, std::string_view content_type,
                          std::string body) {
  http::response<http::string_body> res{static_cast<http::status>(head.status), 11};
  res.set(http::field::server, server_name);
  res.set(http::field::content_type, content_type);
  if (!head.allow.empty()) res.set(http::field::allow, head.allow);
  set_cors(res, head.cors_origin);
  res.keep_alive(head.keep_alive);
  res.body() = std::move(body);
  res.prepare_payload();
  std::ostringstream out;
  if (head.head_only) {
    out << res.base();
  } else {
    out << res;
  }
  return std::move(out).str();
}

std::string make_error_response(const response_head& head, const api_error& err) {
  return make_response(head, "application/json", to_body(err));
}

std::string make_event_stream_head(bool keep_alive, std::string_view cors_origin) {
  http::response<http::empty_body> res{http::status::ok, 11};
  res.set(http::field::server, server_name);
  res.set(http::field::content_type, "text/event-stream");
  res.set(http::field::cache_control, "no-cache");
  set_cors(res, cors_origin);
  res.keep_alive(keep_alive);
  res.chunked(true);
  std::ostringstream out;
  out << res.base();
  return std::move(out).str();
}

std::string make_preflight_response(bool keep_alive, std::string_view allow_origin,
                                    std::string_view allow_methods,
                                    std::string_view allow_headers) {
  http::response<http::string_body> res{http::status::ok, 11};
  res.set(http::field::server, server_name);
  set_cors(res, allow_origin);
  res.set(http::field::access_control_allow_methods, allow_methods);
  if (!allow_headers.empty()) res.set(http::field::access_control_allow_headers, allow_headers);
  res.set(http::field::access_control_max_age, "600");
  res.keep_alive(keep_alive);
  res.prepare_payload();
  std::ostringstream out;
  out << res;
  return std::move(out).str();
}

std::string make_event_chunk(std::string_view payload, std::string_view name) {
  constexpr std::string_view event = "event: ";
  constexpr std::string_view prefix = "data: ";
  constexpr std::string_view suffix = "\n\n";
  const std::size_t named = name.empty() ? 0 : event.size() + name.size() + 1;
  const std::size_t size = named + prefix.size() + payload.size() + suffix.size();
  char size_hex[24];
  const int n = std::snprintf(size_hex, sizeof size_hex, "%zx\r\n", size);
  std::string chunk;
  chunk.reserve(static_cast<std::size_t>(n) + size + 2);
  chunk.append(size_hex, static_cast<std::size_t>(n));
  if (!name.empty()) chunk.append(event).append(name).append("\n");
  chunk.append(prefix).append(payload).append(suffix).append("\r\n");
  return chunk;
}

std::string_view last_chunk() { return "0\r\n\r\n"; }

}  // namespace pagedserve::net
