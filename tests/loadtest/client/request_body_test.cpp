#include "loadtest/core/request_body.h"

#include <gtest/gtest.h>

namespace pagedserve::loadtest {
namespace {

namespace json = boost::json;

json::object body_of(const bench_request& request, std::size_t index, const body_options& o) {
  return json::parse(make_request_body(request, index, o)).as_object();
}

TEST(RequestBody, TokenIdsGoToCompletionsAsAListWithStreamingUsage) {
  bench_request request;
  request.prompt_token_ids = {5, 6, 7};
  request.max_tokens = 9;
  body_options options;
  options.model = "m";
  const json::object body = body_of(request, 0, options);
  EXPECT_EQ(body.at("model"), "m");
  EXPECT_EQ(body.at("prompt"), (json::array{5, 6, 7}));
  EXPECT_EQ(body.at("max_tokens"), 9);
  EXPECT_EQ(body.at("temperature"), 0.0);
  EXPECT_EQ(body.at("stream"), true);
  EXPECT_EQ(body.at("stream_options"), (json::object{{"include_usage", true}}));
  EXPECT_FALSE(body.contains("ignore_eos"));
  EXPECT_FALSE(body.contains("seed"));
  EXPECT_FALSE(body.contains("messages"));
}

TEST(RequestBody, TextGoesAsAStringOrAsOneUserMessage) {
  bench_request request;
  request.prompt_text = "hello";
  body_options options;
  EXPECT_EQ(body_of(request, 0, options).at("prompt"), "hello");
  options.kind = api_kind::chat_completions;
  const json::object chat = body_of(request, 0, options);
  EXPECT_FALSE(chat.contains("prompt"));
  EXPECT_EQ(chat.at("messages"),
            (json::array{json::object{{"role", "user"}, {"content", "hello"}}}));
}

TEST(RequestBody, IgnoreEosSeedPerRequestAndExtraMergedLast) {
  bench_request request;
  request.prompt_text = "x";
  body_options options;
  options.ignore_eos = true;
  options.seed = 100;
  options.extra = json::object{{"top_p", 0.5}, {"max_tokens", 3}};
  const json::object body = body_of(request, 7, options);
  EXPECT_EQ(body.at("ignore_eos"), true);
  EXPECT_EQ(body.at("seed"), 107);
  EXPECT_EQ(body.at("top_p"), 0.5);
  EXPECT_EQ(body.at("max_tokens"), 3);
}

TEST(RequestBody, TokenIdPromptsCannotGoToChat) {
  const std::vector<bench_request> workload = {
      bench_request{{}, "first", 4}, bench_request{{}, "second", 4}, bench_request{{1}, "", 4}};
  EXPECT_TRUE(check_request_kind(workload, api_kind::completions).ok());
  const status checked = check_request_kind(workload, api_kind::chat_completions);
  ASSERT_FALSE(checked.ok());
  EXPECT_NE(checked.err().message.find("request 2"), std::string::npos);
}

}  // namespace
}  // namespace pagedserve::loadtest
