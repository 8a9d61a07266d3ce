#include "loadtest/client/sweep.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "tests/loadtest/client/fake_openai_server.h"

namespace pagedserve::loadtest {
namespace {

using testing::fake_openai_server;
using testing::fake_server_options;
using testing::served_request;

std::vector<bench_request> text_requests(const std::string& prefix, std::size_t n) {
  std::vector<bench_request> requests(n);
  for (std::size_t i = 0; i < n; ++i) {
    requests[i].prompt_text = prefix;
    requests[i].prompt_text += std::to_string(i);
    requests[i].max_tokens = 2;
  }
  return requests;
}

std::vector<std::string> served_prompts(const fake_openai_server& server) {
  std::vector<std::string> prompts;
  for (const served_request& r : server.served()) prompts.push_back(r.prompt);
  std::sort(prompts.begin(), prompts.end());
  return prompts;
}

// One server serves every point of a rate sweep, so each later point (and the warm-ups) must
// send prompts of its own, or it would find them in the prefix cache an earlier run filled.
TEST(LoadtestSweep, RatePointsAndWarmupsSendPromptsOfTheirOwn) {
  fake_openai_server server(
      {.ttft_delay = std::chrono::microseconds(500), .itl_delay = std::chrono::microseconds(500)});
  driver_options options;
  options.server = server.url();
  options.body.model = "fake-model";
  options.num_warmups = 2;
  options.warmup_requests = text_requests("w", 2);
  sweep_spec spec;
  spec.values = {"inf", "50"};
  spec.fresh_workload = [](std::size_t point) -> result<std::vector<bench_request>> {
    std::string prefix = "p";  // (appends: GCC 12's -Wrestrict misfires on "a" + s + "b")
    prefix += std::to_string(point);
    prefix += '-';
    return text_requests(prefix, 3);
  };
  auto points = run_sweep(text_requests("a", 3), options, spec, {});
  ASSERT_TRUE(points.ok()) << points.err().message;
  ASSERT_EQ(points->size(), 2U);
  for (const sweep_point& p : *points) {
    EXPECT_EQ(p.summary.completed, 3U);
    EXPECT_EQ(p.summary.total_output_tokens, 6U);
    EXPECT_EQ(p.ttft_ms.size(), 3U);
    EXPECT_EQ(p.itl_ms.size(), 3U);  // one gap per two-token request
  }
  // Warm-ups run before each point: w0 w1 twice.
  const std::vector<std::string> expected = {"a0",   "a1", "a2", "p1-0", "p1-1",
                                             "p1-2", "w0", "w0", "w1",   "w1"};
  EXPECT_EQ(served_prompts(server), expected);
}

TEST(LoadtestSweep, WithoutFreshWorkloadsEveryPointSendsTheSameRequests) {
  fake_openai_server server(
      {.ttft_delay = std::chrono::microseconds(500), .itl_delay = std::chrono::microseconds(500)});
  driver_options options;
  options.server = server.url();
  options.body.model = "fake-model";
  sweep_spec spec;
  spec.values = {"inf", "inf"};
  auto points = run_sweep(text_requests("a", 2), options, spec, {});
  ASSERT_TRUE(points.ok()) << points.err().message;
  const std::vector<std::string> expected = {"a0", "a0", "a1", "a1"};
  EXPECT_EQ(served_prompts(server), expected);
}

TEST(LoadtestSweep, BadRatesAreRefusedBeforeAnyRequest) {
  fake_openai_server server({});
  driver_options options;
  options.server = server.url();
  sweep_spec spec;
  spec.values = {"4", "fast"};
  auto points = run_sweep(text_requests("a", 1), options, spec, {});
  ASSERT_FALSE(points.ok());
  EXPECT_NE(points.err().message.find("'fast'"), std::string::npos);
  EXPECT_TRUE(server.served().empty());
}

}  // namespace
}  // namespace pagedserve::loadtest
