#include "net/http/ws_protocol.h"

#include <gtest/gtest.h>

namespace pagedserve::net {
namespace {

namespace json = boost::json;

TEST(WsProtocol, CompletionMessageBecomesASubmitWithoutEnvelopeFields) {
  const ws_client_message m =
      parse_ws_message(R"({"type":"completion","id":"r1","prompt":"x","stream":true,"n":2})");
  ASSERT_TRUE(std::holds_alternative<ws_submit>(m));
  const ws_submit& submit = std::get<ws_submit>(m);
  EXPECT_EQ(submit.id, "r1");
  EXPECT_EQ(submit.kind, api_kind::completion);
  EXPECT_EQ(submit.body, json::parse(R"({"prompt":"x","n":2})"));
}

TEST(WsProtocol, ChatAndCancel) {
  const ws_client_message chat =
      parse_ws_message(R"({"type":"chat.completion","id":"c","messages":[]})");
  ASSERT_TRUE(std::holds_alternative<ws_submit>(chat));
  EXPECT_EQ(std::get<ws_submit>(chat).kind, api_kind::chat_completion);
  const ws_client_message cancel = parse_ws_message(R"({"type":"cancel","id":"c"})");
  ASSERT_TRUE(std::holds_alternative<ws_cancel>(cancel));
  EXPECT_EQ(std::get<ws_cancel>(cancel).id, "c");
}

TEST(WsProtocol, InvalidMessagesNameTheProblem) {
  for (const char* text :
       {"[1,2]", "{", R"({"id":"a"})", R"({"type":"completion"})",
        R"({"type":"completion","id":""})", R"({"type":"x","id":"a"})", R"({"type":7,"id":"a"})"}) {
    const ws_client_message m = parse_ws_message(text);
    ASSERT_TRUE(std::holds_alternative<ws_invalid>(m)) << text;
    EXPECT_EQ(std::get<ws_invalid>(m).error.status, 400u) << text;
  }
  EXPECT_EQ(std::get<ws_invalid>(parse_ws_message(R"({"type":"x","id":"a"})")).id, "a");
}

TEST(WsProtocol, ErrorMessageShape) {
  const json::value m = json::parse(ws_error_message("r", backpressure_error(1024)));
  EXPECT_EQ(m.at("type").as_string(), "error");
  EXPECT_EQ(m.at("id").as_string(), "r");
  EXPECT_EQ(m.at("error").at("type").as_string(), "backpressure");
  EXPECT_EQ(m.at("error").at("message").as_string(),
            "send queue over 1024 bytes: client reads too slowly");
}

}  // namespace
}  // namespace pagedserve::net
