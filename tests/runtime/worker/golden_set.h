#pragma once
// golden_set: one HF golden model (tests/data/goldens/models/<name>) as the executor tests use
// it: config, host weights, the prompts, HF's greedy continuations and their logits.

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "runtime/engine/engine_start.h"
#include "runtime/model/checkpoint.h"
#include "runtime/model/model_config.h"
#include "runtime/model/safetensors_file.h"
#include "tests/runtime/forward/golden_model.h"
#include "tests/support/fixtures.h"

namespace pagedserve::engine_testing {

using forward::testing::num_golden_prompts;
using forward::testing::read_f32;
using forward::testing::read_i64_as_tokens;

struct golden_set {
  model_config config;
  std::shared_ptr<const checkpoint> weights;
  std::vector<std::vector<token_id>> prompts;
  std::vector<std::vector<token_id>> greedy;
  std::vector<std::vector<float>> greedy_logits;  // HF's logits row before each greedy token
  std::vector<std::vector<float>> prompt_logits;  // HF's logits at every prompt position
};

// A CPU executor for `g` (512 blocks of 8 tokens, the test driver's block size), or null
// after a failed expectation.
inline std::unique_ptr<step_executor> make_cpu_golden_executor(const golden_set& g) {
  engine_config config;
  config.sched.block_size = 8;
  config.sched.num_blocks = 512;
  auto started = start_executor(config, g.config, *g.weights);
  EXPECT_TRUE(started.ok()) << (started.ok() ? "" : started.err().message);
  return started.ok() ? std::move(started->executor) : nullptr;
}

inline golden_set load_golden(const std::string& name) {
  golden_set g;
  const auto dir = pagedserve::testing::goldens_dir() / "models" / name;
  auto config = load_model_config(dir);
  EXPECT_TRUE(config.ok()) << (config.ok() ? "" : config.err().message);
  g.config = *config;
  auto weights = load_safetensors_checkpoint(dir, g.config);
  EXPECT_TRUE(weights.ok()) << (weights.ok() ? "" : weights.err().message);
  g.weights = std::make_shared<const checkpoint>(std::move(*weights));
  auto golden = safetensors_file::open(dir / "golden.safetensors");
  EXPECT_TRUE(golden.ok()) << (golden.ok() ? "" : golden.err().message);
  for (int i = 0; i < num_golden_prompts; ++i) {
    const std::string prefix = "prompt" + std::to_string(i);
    g.prompts.push_back(read_i64_as_tokens(*golden, prefix + ".ids"));
    g.greedy.push_back(read_i64_as_tokens(*golden, prefix + ".greedy"));
    g.greedy_logits.push_back(read_f32(*golden, prefix + ".greedy_logits"));
    g.prompt_logits.push_back(read_f32(*golden, prefix + ".logits"));
  }
  return g;
}

}  // namespace pagedserve::engine_testing
