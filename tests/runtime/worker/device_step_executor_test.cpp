// The step executor on the CUDA backend, built twice: test_step_executor_simt on the SIMT
// emulator (every CI run) and test_step_executor_cuda on the GPU (label gpu). Its pipelined
// path (device sampling, each sampled token fed to the next step on the device before the
// host reads it, two steps in flight, decode graphs) must give:
//   - at fp32, the HF goldens' greedy tokens, as the CPU executor does (step_executor_test);
//   - with seeded sampling, exactly the CPU executor's tokens (the device sampler makes the
//     host sampler's picks) and the same logprobs;
// and size its KV pool from the device's memory when num_blocks is 0.

#include <gtest/gtest.h>

#include <algorithm>
#include <regex>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "runtime/worker/step_executor.h"

#include "kernels/cpu/cpu_backend.h"
#include "runtime/engine/engine_start.h"
#include "runtime/grammar/compiled_grammar.h"
#include "tests/runtime/worker/golden_set.h"
#include "tests/runtime/worker/grammar_vocabulary.h"
#include "tests/runtime/worker/step_executor_test_driver.h"
#include "tests/support/cuda_device.h"

namespace pagedserve {
namespace {

using engine_testing::drive_options;
using engine_testing::golden_set;
using engine_testing::load_golden;
using engine_testing::num_golden_prompts;
using engine_testing::test_driver;
using forward::testing::model_test_name;

constexpr std::uint32_t k_max_num_seqs = 4;  // graphs for 1, 2 and 4 sequences

seq_id seq_of(int prompt) { return seq_id{static_cast<std::uint64_t>(prompt) + 1}; }

// An executor's inputs here: a golden model and the engine settings.
struct executor_inputs {
  const golden_set* g = nullptr;
  engine_config engine;
};

executor_inputs base_config(const golden_set& g) {
  executor_inputs in;
  in.g = &g;
  in.engine.sched.block_size = engine_testing::block_size;
  in.engine.sched.num_blocks = 128;
  in.engine.sched.max_num_seqs = k_max_num_seqs;
  in.engine.sched.max_num_batched_tokens = 512;  // every golden prompt at once
  in.engine.sched.max_model_len = 128;
  return in;
}

std::unique_ptr<step_executor> start(const executor_inputs& in,
                                     std::unique_ptr<kernels::backend> backend) {
  auto started = start_executor(in.engine, in.g->config, *in.g->weights, std::move(backend));
  EXPECT_TRUE(started.ok()) << (started.ok() ? "" : started.err().message);
  return started.ok() ? std::move(started->executor) : nullptr;
}

// The executor on the CUDA backend (fp32), or null when there is no device (`why` says why).
std::unique_ptr<step_executor> device_executor(const executor_inputs& in, std::string* why) {
  auto backend = testing::device_backend(kernels::dtype::f32, why);
  if (backend == nullptr) return nullptr;
  return start(in, std::move(backend));
}

std::unique_ptr<step_executor> cpu_executor(const executor_inputs& in) {
  return start(in, kernels::make_cpu_backend());
}

#define DEVICE_EXECUTOR(name, config)                                             \
  std::string why;                                                                \
  auto name = device_executor(config, &why);                                      \
  if (name == nullptr && !why.empty()) GTEST_SKIP() << "no CUDA device: " << why; \
  ASSERT_NE(name, nullptr)

class device_step_executor_golden : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { golden_ = load_golden(GetParam()); }
  void expect_greedy_goldens(const test_driver& driver) const {
    for (int i = 0; i < num_golden_prompts; ++i) {
      EXPECT_EQ(driver.generated(seq_of(i)), golden_.greedy[static_cast<std::size_t>(i)])
          << "prompt " << i;
    }
  }
  golden_set golden_;
};

TEST_P(device_step_executor_golden, pipelined_steps_with_graphs_match_greedy_goldens) {
  DEVICE_EXECUTOR(executor, base_config(golden_));
  EXPECT_TRUE(executor->plan().samples_on_device);
  EXPECT_EQ(executor->num_decode_graphs(), 3U);  // 1, 2, 4
  // Staggered starts: later prompts prefill in chunks of 13 while earlier ones decode; two
  // steps in flight, so every decode token comes from the previous step on the device.
  test_driver driver(*executor, {.chunk = 13, .lookahead = true});
  for (int i = 0; i < num_golden_prompts; ++i) {
    driver.add(seq_of(i), golden_.prompts[i], static_cast<std::uint64_t>(2 * i));
  }
  driver.run_to_end();
  expect_greedy_goldens(driver);
  EXPECT_GT(driver.num_graph_steps(), 0U) << "decode-only steps replay graphs";
  EXPECT_LT(driver.num_graph_steps(), driver.num_collected()) << "prefill steps run eagerly";
}

TEST_P(device_step_executor_golden, eager_steps_with_preemption_match_greedy_goldens) {
  executor_inputs config = base_config(golden_);
  config.engine.enforce_eager = true;
  DEVICE_EXECUTOR(executor, std::move(config));
  EXPECT_EQ(executor->num_decode_graphs(), 0U);
  test_driver driver(*executor, {.chunk = 13, .lookahead = true});
  for (int i = 0; i < num_golden_prompts; ++i) driver.add(seq_of(i), golden_.prompts[i]);
  for (int guard = 0; driver.next_step() < 12 && guard < 20; ++guard) {
    if (driver.next_step() == 4) driver.preempt_next(seq_of(3));   // mid-prefill
    if (driver.next_step() == 10) driver.preempt_next(seq_of(1));  // decoding, sample in flight
    ASSERT_TRUE(driver.step().ok());
  }
  driver.run_to_end();
  expect_greedy_goldens(driver);
  EXPECT_EQ(driver.num_graph_steps(), 0U);
}

INSTANTIATE_TEST_SUITE_P(models, device_step_executor_golden,
                         ::testing::Values("tiny-llama", "tiny-llama-bf16", "tiny-qwen2",
                                           "tiny-qwen3"),
                         model_test_name);

// kv_cache_dtype fp8_e4m3 on the device path: kv_write encodes the CPU's codes to the bit and
// attention reads them back in registers, so pipelined steps through graphs and a preemption
// give the CPU executor's greedy tokens with the same fp8 cache (fp32 compute on both).
TEST(device_step_executor, fp8_kv_cache_gives_the_cpu_executors_tokens) {
  const golden_set g = load_golden("tiny-qwen2");
  executor_inputs config = base_config(g);
  config.engine.kv_cache_dtype = "fp8_e4m3";
  DEVICE_EXECUTOR(device, config);
  EXPECT_EQ(device->plan().kv_cache_dtype, forward::kv_cache_dtype::fp8_e4m3);
  EXPECT_GT(device->num_decode_graphs(), 0U);
  auto cpu = cpu_executor(config);
  ASSERT_NE(cpu, nullptr);
  test_driver on_device(*device, {.chunk = 13, .lookahead = true});
  test_driver on_cpu(*cpu, {.chunk = 13, .lookahead = true});
  for (int i = 0; i < num_golden_prompts; ++i) {
    on_device.add(seq_of(i), g.prompts[i]);
    on_cpu.add(seq_of(i), g.prompts[i]);
  }
  for (int guard = 0; on_device.next_step() < 8 && guard < 20; ++guard) {
    if (on_device.next_step() == 6) on_device.preempt_next(seq_of(2));
    ASSERT_TRUE(on_device.step().ok());
  }
  on_device.run_to_end(24);
  on_cpu.run_to_end(24);
  for (int i = 0; i < num_golden_prompts; ++i) {
    EXPECT_EQ(on_device.generated(seq_of(i)), on_cpu.generated(seq_of(i))) << "prompt " << i;
  }
  EXPECT_GT(on_device.num_graph_steps(), 0U);
}

// Seeded sampling with truncation, and logprobs: the device path picks exactly what the CPU
// executor picks from the same (fp32) logits, and reports the same logprobs.
TEST(device_step_executor, seeded_sampling_and_logprobs_equal_the_cpu_executors) {
  const golden_set g = load_golden("tiny-llama");
  sampling_params params;
  params.temperature = 0.9f;
  params.top_p = 0.95f;
  params.top_k = 40;
  params.seed = 1234;
  params.logprobs = 3;
  DEVICE_EXECUTOR(device, base_config(g));
  auto cpu = cpu_executor(base_config(g));
  ASSERT_NE(cpu, nullptr);
  test_driver on_device(*device, {.chunk = 13, .lookahead = true, .params = params});
  test_driver on_cpu(*cpu, {.chunk = 13, .lookahead = true, .params = params});
  for (int i = 0; i < num_golden_prompts; ++i) {
    on_device.add(seq_of(i), g.prompts[i]);
    on_cpu.add(seq_of(i), g.prompts[i]);
  }
  on_device.run_to_end(16);
  on_cpu.run_to_end(16);
  for (int i = 0; i < num_golden_prompts; ++i) {
    EXPECT_EQ(on_device.generated(seq_of(i)), on_cpu.generated(seq_of(i))) << "prompt " << i;
    const auto& got = on_device.logprobs(seq_of(i));
    const auto& want = on_cpu.logprobs(seq_of(i));
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t t = 0; t < got.size(); ++t) {
      EXPECT_NEAR(got[t].chosen_logprob, want[t].chosen_logprob, 1e-3) << i << "/" << t;
      ASSERT_EQ(got[t].top.size(), want[t].top.size());
    }
  }
}

// Penalties (counts kept on the device, built at load, counted by each step in flight),
// logit_bias and min_tokens: the device path samples exactly the CPU executor's tokens,
// through pipelined steps, decode graphs and a preemption that rebuilds the counts.
TEST(device_step_executor, logits_processing_equals_the_cpu_executors_through_a_preemption) {
  const golden_set g = load_golden("tiny-qwen3");
  sampling_params params;
  params.temperature = 0.8f;
  params.seed = 7;
  params.presence_penalty = 1.5f;
  params.frequency_penalty = 0.5f;
  params.repetition_penalty = 1.4f;
  params.logit_bias = {{3, 2.5f}, {11, -1.0f}, {42, 4.0f}};
  params.min_tokens = 4;
  const std::vector<token_id> held = {g.greedy[0][0], g.greedy[1][0]};
  DEVICE_EXECUTOR(device, base_config(g));
  auto cpu = cpu_executor(base_config(g));
  ASSERT_NE(cpu, nullptr);
  const drive_options options{
      .chunk = 13, .lookahead = true, .params = params, .held_stop_token_ids = held};
  test_driver on_device(*device, options);
  test_driver on_cpu(*cpu, options);
  for (int i = 0; i < num_golden_prompts; ++i) {
    on_device.add(seq_of(i), g.prompts[i]);
    on_cpu.add(seq_of(i), g.prompts[i]);
  }
  for (test_driver* driver : {&on_device, &on_cpu}) {
    for (int guard = 0; driver->next_step() < 12 && guard < 20; ++guard) {
      if (driver->next_step() == 9) driver->preempt_next(seq_of(2));  // decoding
      ASSERT_TRUE(driver->step().ok());
    }
    driver->run_to_end(24);
  }
  for (int i = 0; i < num_golden_prompts; ++i) {
    EXPECT_EQ(on_device.generated(seq_of(i)), on_cpu.generated(seq_of(i))) << "prompt " << i;
  }
}

// allowed_token_ids (the device's mask searches the sorted list) and a two-token bad word
// taken from a run without it (its ban follows the token just sampled, which the device path
// reads before planning): the same tokens as the CPU executor through pipelined steps and
// graphs, and the word's second token is not sampled where it came before.
TEST(device_step_executor, allowed_tokens_and_bad_words_equal_the_cpu_executors) {
  const golden_set g = load_golden("tiny-qwen3");
  sampling_params params;
  params.temperature = 0.7f;
  params.seed = 11;
  for (token_id t = 639; t >= 0; t -= 3) params.allowed_token_ids.push_back(t);
  std::sort(params.allowed_token_ids.begin(), params.allowed_token_ids.end());
  auto run = [&](step_executor& executor, const sampling_params& p) {
    test_driver driver(executor, {.chunk = 13, .lookahead = true, .params = p});
    for (int i = 0; i < num_golden_prompts; ++i) driver.add(seq_of(i), g.prompts[i]);
    driver.run_to_end(20);
    std::vector<std::vector<token_id>> out;
    for (int i = 0; i < num_golden_prompts; ++i) out.push_back(driver.generated(seq_of(i)));
    return out;
  };
  auto cpu = cpu_executor(base_config(g));
  ASSERT_NE(cpu, nullptr);
  const auto without = run(*cpu, params);
  params.bad_words_token_ids = {{without[0][3], without[0][4]}};
  DEVICE_EXECUTOR(device, base_config(g));
  auto cpu_again = cpu_executor(base_config(g));
  const auto on_cpu = run(*cpu_again, params);
  const auto on_device = run(*device, params);
  EXPECT_EQ(on_device, on_cpu);
  EXPECT_EQ(on_cpu[0][3], without[0][3]);
  EXPECT_NE(on_cpu[0][4], without[0][4]);
  for (const auto& out : on_cpu) {
    for (const token_id t : out) EXPECT_EQ((639 - t) % 3, 0);
  }
}

// Runs `options` (with the object grammar, temperature 1 and `seed`) on the device and on
// the CPU executor, preempting sequence 2 after 8 steps when asked: the tokens must be the
// same, and every text a complete object followed by the stop token.
void expect_constrained_runs_agree(const golden_set& g, drive_options options, std::uint64_t seed,
                                   bool preempt) {
  const auto vocab = static_cast<std::size_t>(g.config.vocab_size);
  auto compiled =
      grammar::compile_gbnf(engine_testing::object_gbnf, engine_testing::grammar_vocabulary(vocab));
  ASSERT_TRUE(compiled.ok()) << compiled.err().message;
  options.params.temperature = 1.0f;
  options.params.seed = seed;
  options.grammar = *compiled;
  auto run = [&](step_executor& executor) {
    test_driver driver(executor, options);
    for (int i = 0; i < 3; ++i) driver.add(seq_of(i), g.prompts[i]);
    if (preempt) {
      for (int s = 0; s < 8; ++s) EXPECT_TRUE(driver.step().ok());
      driver.preempt_next(seq_of(2));
    }
    driver.run_to_end(48);
    std::vector<std::vector<token_id>> out;
    for (int i = 0; i < 3; ++i) out.push_back(driver.generated(seq_of(i)));
    return out;
  };
  DEVICE_EXECUTOR(device, base_config(g));
  auto cpu = cpu_executor(base_config(g));
  ASSERT_NE(cpu, nullptr);
  const auto on_device = run(*device);
  EXPECT_EQ(on_device, run(*cpu)) << "seed " << seed;
  for (const auto& tokens : on_device) {
    const auto text = engine_testing::grammar_text(tokens, vocab);
    EXPECT_TRUE(text.stopped) << text.text;
    EXPECT_TRUE(std::regex_match(text.text, std::regex(engine_testing::object_regex))) << text.text;
  }
}

// Structured outputs on the device path: the grammar's bitmask rides with the edits and
// process_logits applies it; a constrained sequence reads its last sample before its next
// step is planned. Pipelined steps, graphs and a preemption mid-text give the CPU
// executor's tokens, and the text matches the grammar (std::regex).
TEST(device_step_executor, grammar_masks_equal_the_cpu_executors) {
  const golden_set g = load_golden("tiny-qwen3");
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    expect_constrained_runs_agree(g, drive_options{.chunk = 13, .lookahead = true}, seed, true);
  }
}

// The grammar wins over min_tokens and allowed_token_ids on the device path too (the edits
// and the allowed ids are dropped from the step's processing, as on the host).
TEST(device_step_executor, the_grammar_wins_as_on_the_cpu) {
  const golden_set g = load_golden("tiny-qwen3");
  for (std::uint64_t seed = 1; seed <= 2; ++seed) {
    drive_options options{.chunk = 13, .lookahead = true};
    options.params.min_tokens = 45;  // the longest object has 37 characters
    if (seed == 2) options.params.allowed_token_ids = {0, 1};
    options.held_stop_token_ids = {static_cast<token_id>(g.config.vocab_size - 1)};
    expect_constrained_runs_agree(g, options, seed, false);
  }
}

// prompt_logprobs on the device path: the rows of each prefill chunk read back while later
// steps are queued (lookahead), a preemption halfway through a prefill: the same positions,
// once each, as the CPU executor (whose values the HF goldens hold, prompt_logprobs_executor_test).
TEST(device_step_executor, prompt_logprobs_equal_the_cpu_executors_through_a_preemption) {
  const golden_set g = load_golden("tiny-llama");
  sampling_params params;
  params.temperature = 0.0f;
  params.prompt_logprobs = 3;
  DEVICE_EXECUTOR(device, base_config(g));
  auto cpu = cpu_executor(base_config(g));
  ASSERT_NE(cpu, nullptr);
  test_driver on_device(*device, {.chunk = 13, .lookahead = true, .params = params});
  test_driver on_cpu(*cpu, {.chunk = 13, .lookahead = true, .params = params});
  for (test_driver* driver : {&on_device, &on_cpu}) {
    for (int i = 0; i < num_golden_prompts; ++i) driver->add(seq_of(i), g.prompts[i]);
    for (int s = 0; s < 3; ++s) ASSERT_TRUE(driver->step().ok());
    driver->preempt_next(seq_of(3));  // 100 tokens: mid-prefill
    driver->run_to_end(4);
  }
  for (int i = 0; i < num_golden_prompts; ++i) {
    const auto& got = on_device.prompt_logprobs(seq_of(i));
    const auto& want = on_cpu.prompt_logprobs(seq_of(i));
    ASSERT_EQ(got.size(), g.prompts[i].size() - 1) << "prompt " << i;
    ASSERT_EQ(want.size(), got.size());
    for (std::size_t t = 0; t < got.size(); ++t) {
      EXPECT_NEAR(got[t].chosen_logprob, want[t].chosen_logprob, 1e-3) << i << "/" << t;
      EXPECT_EQ(got[t].chosen_rank, want[t].chosen_rank) << i << "/" << t;
      ASSERT_EQ(got[t].top.size(), 3U);
      EXPECT_EQ(got[t].top[0].token, want[t].top[0].token) << i << "/" << t;
    }
    EXPECT_EQ(on_device.generated(seq_of(i)), on_cpu.generated(seq_of(i))) << "prompt " << i;
  }
}

// Embeddings (pooling) on the device path: the hidden rows of each prefill chunk read back
// (bf16/f16 widened on the host) while later steps are queued, a preemption halfway through
// a prefill (no position pooled twice): the CPU executor's vectors, which
// tests/train/model/shipped_model_embedding_test.cpp holds to an independent forward.
TEST(device_step_executor, embeddings_equal_the_cpu_executors_through_a_preemption) {
  const golden_set g = load_golden("tiny-llama");
  for (const pooling_type type : {pooling_type::mean, pooling_type::last, pooling_type::cls}) {
    sampling_params params;
    params.temperature = 0.0f;
    params.pooling = pooling_params{type, std::nullopt, true};
    DEVICE_EXECUTOR(device, base_config(g));
    auto cpu = cpu_executor(base_config(g));
    ASSERT_NE(cpu, nullptr);
    test_driver on_device(*device, {.chunk = 13, .lookahead = true, .params = params});
    test_driver on_cpu(*cpu, {.chunk = 13, .lookahead = true, .params = params});
    for (test_driver* driver : {&on_device, &on_cpu}) {
      for (int i = 0; i < num_golden_prompts; ++i) driver->add(seq_of(i), g.prompts[i]);
      for (int s = 0; s < 3; ++s) ASSERT_TRUE(driver->step().ok());
      driver->preempt_next(seq_of(3));  // 100 tokens: mid-prefill
      driver->run_to_end(1);
    }
    // The preempted prompt pools each position once: as a CPU run without the preemption.
    auto plain_cpu = cpu_executor(base_config(g));
    ASSERT_NE(plain_cpu, nullptr);
    test_driver plain(*plain_cpu, {.chunk = 13, .lookahead = true, .params = params});
    plain.add(seq_of(3), g.prompts[3]);
    plain.run_to_end(1);
    const std::vector<float>& whole = plain.embedding(seq_of(3));
    ASSERT_EQ(whole.size(), on_cpu.embedding(seq_of(3)).size());
    for (std::size_t j = 0; j < whole.size(); ++j) {
      EXPECT_NEAR(on_cpu.embedding(seq_of(3))[j], whole[j], 1e-5) << to_string(type) << " " << j;
    }
    for (int i = 0; i < num_golden_prompts; ++i) {
      const std::vector<float>& got = on_device.embedding(seq_of(i));
      const std::vector<float>& want = on_cpu.embedding(seq_of(i));
      ASSERT_EQ(got.size(), static_cast<std::size_t>(g.config.hidden_size)) << "prompt " << i;
      ASSERT_EQ(want.size(), got.size());
      double norm = 0.0;
      for (std::size_t j = 0; j < got.size(); ++j) {
        EXPECT_NEAR(got[j], want[j], 2e-3) << to_string(type) << " " << i << "/" << j;
        norm += static_cast<double>(got[j]) * got[j];
      }
      EXPECT_NEAR(norm, 1.0, 1e-4);
    }
  }
}

// num_blocks 0: the pool is what gpu_memory_utilization leaves after a profiling forward.
TEST(device_step_executor, pool_is_planned_from_device_memory) {
  const golden_set g = load_golden("tiny-qwen3");
  executor_inputs config = base_config(g);
  config.engine.sched.num_blocks = 0;
  config.engine.gpu_memory_utilization = 0.5;
  config.engine.sched.max_num_batched_tokens = 64;
  DEVICE_EXECUTOR(executor, std::move(config));
  const engine_plan& plan = executor->plan();
  EXPECT_EQ(plan.sizing, pool_sizing::device_memory);
  const std::uint32_t num_blocks = plan.sched.num_blocks;
  EXPECT_GT(num_blocks, 128U / engine_testing::block_size);  // one max_model_len fits
  EXPECT_EQ(plan.kv_bytes, (std::int64_t{num_blocks} + 1) * plan.bytes_per_block);
  EXPECT_LE(plan.in_use_bytes + plan.kv_bytes, plan.device_total_bytes / 2);
  EXPECT_NEAR(plan.max_concurrency(),
              static_cast<double>(num_blocks) * engine_testing::block_size / 128.0, 1e-9);
  // And it serves: the goldens through the planned pool, in steps within the 64 tokens the
  // workspace was reserved for.
  test_driver driver(*executor, {.chunk = 16, .lookahead = true});
  for (int i = 0; i < num_golden_prompts; ++i) driver.add(seq_of(i), g.prompts[i]);
  driver.run_to_end(8);
  for (int i = 0; i < num_golden_prompts; ++i) {
    const auto& want = g.greedy[static_cast<std::size_t>(i)];
    EXPECT_EQ(driver.generated(seq_of(i)), std::vector<token_id>(want.begin(), want.begin() + 8));
  }
}

}  // namespace
}  // namespace pagedserve
