#pragma once
// request_rules: RFC 9112's rules on a request head that Beast leaves to the server, checked
// once the head is parsed and before any body byte is read. A request that breaks one is
// answered with the error and the connection closes (its framing cannot be trusted):
//   - the target is origin-form ("/path?query") or absolute-form ("http://host/path")
//     (§3.2); anything else is 400;
//   - an HTTP/1.1 request has exactly one Host field, with a valid value (§3.2: else 400);
//   - Transfer-Encoding (§6.1, §7): only "chunked", once, as the last coding. chunked not
//     last, or twice, is 400 (the length cannot be determined); another coding is 501 (not
//     implemented); any Transfer-Encoding in HTTP/1.0 is 400 (faulty framing). Beast itself
//     refuses Transfer-Encoding together with Content-Length (§6.3: a smuggling attempt).
// And RFC 6455's rule on a WebSocket upgrade that Beast does not check: exactly one
// Sec-WebSocket-Key, whose value is base64 of 16 bytes (§4.2.1: else 400).

#include <optional>

#include <boost/beast/http/message.hpp>

#include "net/openai/api_error.h"

namespace pagedserve::net {

[[nodiscard]] std::optional<api_error> check_request_head(
    const boost::beast::http::request_header<>& head);

[[nodiscard]] std::optional<api_error> check_websocket_key(
    const boost::beast::http::request_header<>& head);

}  // namespace pagedserve::net
