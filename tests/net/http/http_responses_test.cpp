#include "net/http/http_responses.h"

#include <gtest/gtest.h>
#include <boost/beast/core/flat_buffer.hpp>

#include "tests/net/http/response_parser.h"

namespace pagedserve::net {
namespace {

namespace http = boost::beast::http;

using testing::parse_response;

TEST(HttpResponses, JsonResponseWithLength) {
  const auto res =
      parse_response(make_response(response_head{200, true, {}}, "application/json", "{}"));
  EXPECT_EQ(res.result_int(), 200u);
  EXPECT_EQ(res.body(), "{}");
  EXPECT_TRUE(res.keep_alive());
}

// RFC 9110 §9.3.2: GET's head, Content-Length included, and no body (03b41d6 sent the body,
// which the client then read as the start of the next response).
TEST(HttpResponses, AnswerToHeadIsTheHeadAlone) {
  const std::string get =
      make_response(response_head{200, true, {}}, "application/json", "{\"a\":1}");
  const std::string head = make_response(response_head{200, true, {}, /*head_only=*/true},
                                         "application/json", "{\"a\":1}");
  ASSERT_EQ(get.substr(0, head.size()), head);
  EXPECT_EQ(get.size(), head.size() + 7);
  EXPECT_NE(head.find("Content-Length: 7\r\n"), std::string::npos);
  EXPECT_EQ(head.substr(head.size() - 4), "\r\n\r\n");
}

TEST(HttpResponses, ErrorResponseCarriesAllowAndClose) {
  const auto res = parse_response(
      make_error_response(response_head{405, false, "POST"}, method_not_allowed("no")));
  EXPECT_EQ(res.result_int(), 405u);
  EXPECT_EQ(res[http::field::allow], "POST");
  EXPECT_FALSE(res.keep_alive());
  EXPECT_NE(res.body().find("\"error\""), std::string::npos);
}

TEST(HttpResponses, EventStreamIsChunkedEvents) {
  const std::string bytes = make_event_stream_head(true) + make_event_chunk("{\"a\":1}") +
                            make_event_chunk("[DONE]") + std::string(last_chunk());
  const auto res = parse_response(bytes);
  EXPECT_EQ(res[http::field::content_type], "text/event-stream");
  EXPECT_EQ(res[http::field::cache_control], "no-cache");
  EXPECT_TRUE(res.chunked());
  EXPECT_EQ(res.body(), "data: {\"a\":1}\n\ndata: [DONE]\n\n");
}

}  // namespace
}  // namespace pagedserve::net
