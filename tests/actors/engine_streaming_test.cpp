// A stream's tokens leave the engine as soon as the step that sampled them has run. On a
// backend that computes a step inside submit() (the CPU, and the SIMT emulator that runs a
// stream when asked whether it is done) the executor answers step k before it computes
// step k + 1, so a client sees one token per step, evenly, never two at once.
//
// The check needs no clock: the step hook runs on the executor before each step's forward
// and waits (finitely) until the sink holds every token sampled so far. Had the executor held
// step k's answer until step k + 1 ran, the hook of step k + 1 would wait in vain.

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "actors/engine.h"
#include "tests/actors/engine_test_support.h"

namespace pagedserve {
namespace {

using testing::event_recorder;
using testing::greedy_request;
using testing::reference_greedy;

// Long enough for any scheduler turn under ASan; a broken pipeline waits this long once.
constexpr auto k_token_wait = std::chrono::seconds(10);

// What the hook saw at the start of each step: how many tokens the sink held by then.
struct step_log {
  std::mutex mutex;
  std::vector<std::size_t> num_tokens_at_start;
  bool gave_up = false;  // one wait timed out: later steps do not wait again
};

engine_config streaming_config(const std::string& backend) {
  engine_config config = testing::demo_engine_config();
  config.backend = backend;
  config.dtype = "float32";
  config.sched.num_blocks = 64;
  return config;
}

class engine_streaming : public ::testing::TestWithParam<std::string> {};

TEST_P(engine_streaming, each_token_reaches_the_sink_before_the_next_step_starts) {
  constexpr std::uint32_t max_tokens = 8;
  const std::vector<token_id> prompt = {1, 5, 9, 13};
  event_recorder rec;
  auto log = std::make_shared<step_log>();
  engine_config config = streaming_config(GetParam());
  // One request, a prompt shorter than the token budget: step k samples the stream's token
  // k + 1, so step k may start once the sink holds k tokens.
  config.before_step = [rec, log](std::uint64_t step) {
    bool give_up = false;
    {
      const std::lock_guard<std::mutex> lock(log->mutex);
      give_up = log->gave_up;
    }
    const bool arrived = !give_up && rec.wait_for_tokens(step, k_token_wait);
    const std::lock_guard<std::mutex> lock(log->mutex);
    log->gave_up = log->gave_up || !arrived;
    log->num_tokens_at_start.push_back(rec.tokens().size());
  };
  auto e = engine::start(config);
  ASSERT_TRUE(e.ok()) << e.err().message;
  ASSERT_TRUE((*e)->submit(greedy_request(prompt, max_tokens), rec.callback()).ok());
  ASSERT_TRUE(rec.wait_for_finals());
  EXPECT_EQ((*e)->shutdown(std::chrono::seconds(30)).num_leaked_blocks, 0U);

  EXPECT_EQ(rec.tokens(), reference_greedy(prompt, max_tokens));
  const std::lock_guard<std::mutex> lock(log->mutex);
  ASSERT_EQ(log->num_tokens_at_start.size(), std::size_t{max_tokens});
  for (std::size_t step = 0; step < max_tokens; ++step) {
    EXPECT_EQ(log->num_tokens_at_start[step], step)
        << "tokens in the sink when step " << step << " started";
  }
  // One chunk per step: the tokens were not sent in pairs.
  EXPECT_EQ(rec.chunks().size(), std::size_t{max_tokens});
}

#ifdef PAGEDSERVE_TEST_EMULATED_CUDA
const auto k_backends = ::testing::Values(std::string("cpu"), std::string("cuda"));
#else
const auto k_backends = ::testing::Values(std::string("cpu"));
#endif

std::string backend_test_name(const ::testing::TestParamInfo<std::string>& param) {
  return param.param == "cpu" ? "cpu" : "emulated_cuda";
}

INSTANTIATE_TEST_SUITE_P(backends, engine_streaming, k_backends, backend_test_name);

}  // namespace
}  // namespace pagedserve
