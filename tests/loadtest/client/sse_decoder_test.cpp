#include "loadtest/core/sse_decoder.h"

#include <gtest/gtest.h>

namespace pagedserve::loadtest {
namespace {

using events = std::vector<std::string>;

// Feeds `stream` in pieces of `piece` bytes and returns every event.
events decode_in_pieces(std::string_view stream, std::size_t piece) {
  sse_decoder decoder;
  events out;
  for (std::size_t at = 0; at < stream.size(); at += piece) {
    decoder.feed(stream.substr(at, piece), out);
  }
  EXPECT_FALSE(decoder.has_partial_event());
  return out;
}

TEST(SseDecoder, EventsEndAtBlankLinesForEveryLineEndingAndSplit) {
  const events expected = {R"({"a":1})", "[DONE]"};
  for (std::string_view stream :
       {"data: {\"a\":1}\n\ndata: [DONE]\n\n", "data: {\"a\":1}\r\n\r\ndata: [DONE]\r\n\r\n",
        "data: {\"a\":1}\r\rdata: [DONE]\r\r", "data:{\"a\":1}\n\r\ndata:[DONE]\r\n\n"}) {
    for (std::size_t piece = 1; piece <= stream.size(); ++piece) {
      EXPECT_EQ(decode_in_pieces(stream, piece), expected) << stream << " piece " << piece;
    }
  }
}

TEST(SseDecoder, JoinsDataLinesAndIgnoresCommentsAndOtherFields) {
  const std::string_view stream =
      ": keep-alive\n\nevent: message\nid: 7\ndata: first\ndata:  second\nretry: 10\n\n";
  EXPECT_EQ(decode_in_pieces(stream, 3), (events{"first\n second"}));
}

TEST(SseDecoder, AnEventWithoutDataIsNotAnEventAndEmptyDataIs) {
  EXPECT_EQ(decode_in_pieces("event: ping\n\ndata\n\n", 1), (events{""}));
}

TEST(SseDecoder, KeepsAPartialEventUntilItsBlankLine) {
  sse_decoder decoder;
  events out;
  decoder.feed("data: par", out);
  EXPECT_TRUE(decoder.has_partial_event());
  decoder.feed("tial\r", out);
  EXPECT_TRUE(decoder.has_partial_event());
  EXPECT_TRUE(out.empty());
  decoder.feed("\n\r\n", out);
  EXPECT_EQ(out, (events{"partial"}));
  EXPECT_FALSE(decoder.has_partial_event());
}

}  // namespace
}  // namespace pagedserve::loadtest
