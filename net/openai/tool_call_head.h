#pragma once
// The head of a JSON tool call, everything before its arguments' value:
//
//   {"name": "<function>", "arguments": {      ("parameters" also accepted)
//
// with JSON whitespace anywhere between the tokens. The name must come first (every
// template and the server's grammar write it so): that is what lets the name go out before
// the arguments have arrived. The arguments must be an object.

#include <cstdint>
#include <string>
#include <string_view>

namespace pagedserve::net::detail {

enum class head_result : std::uint8_t { need_more, mismatch, matched };

struct call_head {
  head_result result = head_result::need_more;
  std::size_t length = 0;  // bytes up to the arguments' '{' (not included)
  std::string name;
};

// Matches a head at the start of `text`. need_more: `text` is a proper prefix of a head;
// mismatch: no continuation of `text` starts with a head.
[[nodiscard]] call_head match_call_head(std::string_view text);

}  // namespace pagedserve::net::detail
