#pragma once
// Helpers of the tool-call parser tests: a text streamed in pieces, its deltas checked for
// OpenAI's shape and collected into the non-streaming result's shape, so one assertion
// says "streamed in every way, the same as extract_tool_calls".

#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "net/openai/tool_call_parser.h"

namespace pagedserve::net::testing {

struct streamed {
  extracted_tool_calls result;
  std::uint32_t num_calls = 0;
};

// Adds one delta to `out`, checking that a call's first piece has its name, the next call's
// index follows on and later pieces have no name.
inline void collect(const stream_delta& delta, extracted_tool_calls& out) {
  out.content += delta.content;
  for (const tool_call_delta& d : delta.calls) {
    if (d.index == out.calls.size()) {
      ASSERT_TRUE(d.name.has_value()) << "call " << d.index << "'s first piece has no name";
      out.calls.push_back(parsed_tool_call{*d.name, d.arguments});
      continue;
    }
    ASSERT_LT(d.index, out.calls.size()) << "call indices skip one";
    EXPECT_FALSE(d.name.has_value()) << "call " << d.index << " named twice";
    out.calls[d.index].arguments += d.arguments;
  }
}

// The text pushed in the pieces that `cuts` (ascending offsets) makes, then flushed.
inline streamed stream_cut(tool_call_format format, std::string_view text,
                           const std::vector<std::size_t>& cuts, std::string_view named = {}) {
  tool_call_streamer s(format, std::string(named));
  streamed out;
  std::size_t from = 0;
  for (const std::size_t cut : cuts) {
    collect(s.push(text.substr(from, cut - from)), out.result);
    from = cut;
  }
  collect(s.push(text.substr(from)), out.result);
  collect(s.flush(), out.result);
  out.num_calls = s.num_calls();
  return out;
}

inline streamed stream_in_pieces(tool_call_format format, std::string_view text, std::size_t size,
                                 std::string_view named = {}) {
  std::vector<std::size_t> cuts;
  for (std::size_t at = size; at < text.size(); at += size) cuts.push_back(at);
  return stream_cut(format, text, cuts, named);
}

inline void expect_same(const extracted_tool_calls& got, const extracted_tool_calls& want,
                        const std::string& how) {
  EXPECT_EQ(got.content, want.content) << how;
  ASSERT_EQ(got.calls.size(), want.calls.size()) << how;
  for (std::size_t i = 0; i < want.calls.size(); ++i) {
    EXPECT_EQ(got.calls[i].name, want.calls[i].name) << how << ", call " << i;
    EXPECT_EQ(got.calls[i].arguments, want.calls[i].arguments) << how << ", call " << i;
  }
}

// Streamed in pieces of every size, and (for short texts) cut in two at every offset, the
// text gives what extract_tool_calls gives.
inline void expect_streaming_agrees(tool_call_format format, std::string_view text,
                                    std::string_view named = {}) {
  const extracted_tool_calls whole = extract_tool_calls(format, text, named);
  for (std::size_t size = 1; size <= text.size(); ++size) {
    const streamed s = stream_in_pieces(format, text, size, named);
    expect_same(s.result, whole, "pieces of " + std::to_string(size));
    EXPECT_EQ(s.num_calls, whole.calls.size());
  }
  if (text.size() > 200) return;
  for (std::size_t a = 1; a < text.size(); ++a) {
    expect_same(stream_cut(format, text, {a}, named).result, whole, "cut at " + std::to_string(a));
  }
}

}  // namespace pagedserve::net::testing
