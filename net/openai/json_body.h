#pragma once
// json_body: the one place a request body (or a WebSocket message) is parsed as JSON, with
// the one wording of its failure. What the document costs is bounded by the body's size:
// Boost.JSON holds 16-24 bytes per value, so at worst (a body of one-digit numbers) the
// document and the parser's stack take about 14 bytes per body byte (a 4 MiB body: 57 MB of
// resident memory, measured); a text prompt about 1, token-id arrays 3 to 6. It lives only
// while the body is turned into a request (docs/http-server.md, "Memory per connection").

#include <string_view>
#include <variant>

#include <boost/json.hpp>

#include "net/openai/api_error.h"

namespace pagedserve::net {

// The JSON value of `text`, or the 400 to answer ("the body is not valid JSON: ...").
[[nodiscard]] std::variant<boost::json::value, api_error> parse_json_body(std::string_view text);

}  // namespace pagedserve::net
