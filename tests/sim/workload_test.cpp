// Workload lines as the simulator reads them (the format of tests/data/bench/nano-256.jsonl).

#include "sim/workload.h"

#include <gtest/gtest.h>

namespace pagedserve::sim {
namespace {

TEST(Workload, ParsesPromptMaxTokensArrivalAndPriority) {
  const auto request = parse_workload_line(
      R"({"prompt_token_ids": [5, 0, 31999], "max_tokens": 7, "arrival_s": 1.5, "priority": -2})",
      1);
  ASSERT_TRUE(request.ok()) << request.err().message;
  EXPECT_EQ(request->prompt_token_ids, (std::vector<token_id>{5, 0, 31999}));
  EXPECT_EQ(request->max_tokens, 7u);
  EXPECT_EQ(request->arrival_s, 1.5);
  EXPECT_EQ(request->priority, -2);
}

TEST(Workload, OptionalFieldsDefault) {
  const auto request = parse_workload_line(R"({"prompt_token_ids": [1], "max_tokens": 3})", 1);
  ASSERT_TRUE(request.ok());
  EXPECT_FALSE(request->arrival_s.has_value());
  EXPECT_EQ(request->priority, 0);
}

TEST(Workload, BadLinesNameTheLineAndTheProblem) {
  const auto not_json = parse_workload_line("{oops", 4);
  ASSERT_FALSE(not_json.ok());
  EXPECT_NE(not_json.err().message.find("line 4"), std::string::npos);
  const auto no_prompt = parse_workload_line(R"({"max_tokens": 3})", 2);
  ASSERT_FALSE(no_prompt.ok());
  EXPECT_NE(no_prompt.err().message.find("prompt_token_ids"), std::string::npos);
  EXPECT_FALSE(parse_workload_line(R"({"prompt_token_ids": [-1]})", 1).ok());
  EXPECT_FALSE(parse_workload_line(R"({"prompt_token_ids": [1.5]})", 1).ok());
  EXPECT_FALSE(parse_workload_line(R"({"prompt_token_ids": [1], "max_tokens": -3})", 1).ok());
  EXPECT_FALSE(parse_workload_line(R"({"prompt_token_ids": [1], "arrival_s": "x"})", 1).ok());
}

TEST(Workload, MissingFileIsAnIoError) {
  const auto workload = load_workload("/nonexistent/workload.jsonl");
  ASSERT_FALSE(workload.ok());
  EXPECT_EQ(workload.err().code, error_code::io_error);
}

}  // namespace
}  // namespace pagedserve::sim
