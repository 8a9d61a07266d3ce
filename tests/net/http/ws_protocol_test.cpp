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

TEST(WsProtocol, LifecycleIsAnOptInBooleanTakenOffTheBody) {
  const auto submit_of = [](const char* text) {
    const ws_client_message m = parse_ws_message(text);
    EXPECT_TRUE(std::holds_alternative<ws_submit>(m)) << text;
    return std::holds_alternative<ws_submit>(m) ? std::get<ws_submit>(m) : ws_submit{};
  };
  const ws_submit on = submit_of(R"({"type":"completion","id":"r","prompt":"x","lifecycle":true})");
  EXPECT_TRUE(on.lifecycle);
  EXPECT_EQ(on.body, json::parse(R"({"prompt":"x"})"));
  EXPECT_FALSE(submit_of(R"({"type":"completion","id":"r","prompt":"x"})").lifecycle);
  EXPECT_FALSE(submit_of(R"({"type":"completion","id":"r","lifecycle":false})").lifecycle);
  EXPECT_FALSE(submit_of(R"({"type":"completion","id":"r","lifecycle":null})").lifecycle);
  const ws_client_message bad =
      parse_ws_message(R"({"type":"chat.completion","id":"r","lifecycle":"yes"})");
  ASSERT_TRUE(std::holds_alternative<ws_invalid>(bad));
  EXPECT_EQ(std::get<ws_invalid>(bad).id, "r");
  EXPECT_EQ(std::get<ws_invalid>(bad).error.param, "lifecycle");
}

TEST(WsProtocol, LifecycleMessageShape) {
  request_lifecycle l;
  l.index = 0;
  l.stage = lifecycle_stage::scheduled;
  l.num_cached_tokens = 32;
  l.step = 7;
  l.time = 0.25;
  EXPECT_EQ(json::parse(ws_lifecycle_message("q", 3, l)),
            json::parse(R"({"type":"lifecycle","id":"q","index":3,"stage":"scheduled","step":7,
                            "time":0.25,"cached_tokens":32})"));
  l.stage = lifecycle_stage::preempted;
  l.num_computed_tokens_lost = 40;
  EXPECT_EQ(json::parse(ws_lifecycle_message("q", 0, l)),
            json::parse(R"({"type":"lifecycle","id":"q","index":0,"stage":"preempted","step":7,
                            "time":0.25,"computed_tokens_lost":40})"));
  l.stage = lifecycle_stage::finished;
  EXPECT_EQ(json::parse(ws_lifecycle_message("q", 0, l)),
            json::parse(R"({"type":"lifecycle","id":"q","index":0,"stage":"finished","step":7,
                            "time":0.25})"));
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
