#pragma once
// http_responses: the bytes of HTTP/1.1 responses as the session's write queue holds them.
// Complete responses and the event-stream header are serialized by Beast; an event stream's
// body is chunked transfer encoding (RFC 9112 §7.1), one chunk per SSE event.

#include <string>
#include <string_view>

#include "net/openai/api_error.h"

namespace pagedserve::net {

struct response_head {
  unsigned status = 200;
  bool keep_alive = true;
  std::string_view allow;  // 405: the Allow header
  // The answer to a HEAD request: the head a GET would get (its Content-Length included),
  // no body (RFC 9110 §9.3.2).
  bool head_only = false;
  // CORS (cors.h): the Access-Control-Allow-Origin value; empty: no CORS headers.
  std::string_view cors_origin{};
};

[[nodiscard]] std::string make_response(const response_head& head, std::string_view content_type,
                                        std::string body);
[[nodiscard]] std::string make_error_response(const response_head& head, const api_error& err);
// 200, text/event-stream, no-cache, chunked.
[[nodiscard]] std::string make_event_stream_head(bool keep_alive,
                                                 std::string_view cors_origin = {});
// A CORS preflight's 200: allowed origin, methods, headers and a max age of 600 s; no body.
[[nodiscard]] std::string make_preflight_response(bool keep_alive, std::string_view allow_origin,
                                                  std::string_view allow_methods,
                                                  std::string_view allow_headers);
// One chunk holding "data: <payload>\n\n", or with an event name
// "event: <name>\ndata: <payload>\n\n" (the Responses and Messages APIs name their events).
[[nodiscard]] std::string make_event_chunk(std::string_view payload, std::string_view name = {});
[[nodiscard]] std::string_view last_chunk();  // ends a chunked body

}  // namespace pagedserve::net
