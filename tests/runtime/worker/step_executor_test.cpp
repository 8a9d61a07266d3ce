// step_executor against the HF goldens: plans written by hand the way the scheduler writes
// them (deltas, chunked prefill, one step of lookahead, preemption) must give the goldens'
// greedy ids; seeded sampling must not notice a preemption; a failed step drops exactly
// its sequences; logprobs are the log_softmax of the goldens' logits.

#include "runtime/worker/step_executor.h"

#include "kernels/cpu/cpu_backend.h"
#include "runtime/engine/engine_start.h"
#include "runtime/forward/model_forward.h"
#include "runtime/forward/model_weights.h"
#include "runtime/plan/engine_plan.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/model/checkpoint.h"
#include "runtime/model/safetensors_file.h"
#include "tests/runtime/forward/golden_model.h"
#include "tests/runtime/worker/golden_set.h"
#include "tests/runtime/worker/step_executor_test_driver.h"
#include "tests/support/fixtures.h"

namespace pagedserve {
namespace {

using engine_testing::block_size;
using engine_testing::drive_options;
using engine_testing::golden_set;
using engine_testing::greedy_params;
using engine_testing::load_golden;
using engine_testing::test_driver;
using forward::testing::model_test_name;
using forward::testing::num_golden_prompts;
using sched::schedule_kind;
using sched::step_plan;

std::unique_ptr<step_executor> make_executor(const golden_set& g,
                                             std::function<void(std::uint64_t)> hook = {}) {
  engine_config config;
  config.sched.block_size = block_size;
  config.sched.num_blocks = 512;
  config.before_step = std::move(hook);
  auto started = start_executor(config, g.config, *g.weights);
  EXPECT_TRUE(started.ok()) << (started.ok() ? "" : started.err().message);
  return started.ok() ? std::move(started->executor) : nullptr;
}

seq_id seq_of(int prompt) { return seq_id{static_cast<std::uint64_t>(prompt) + 1}; }

class step_executor_golden : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    golden_ = load_golden(GetParam());
    executor_ = make_executor(golden_);
    ASSERT_NE(executor_, nullptr);
  }
  void expect_greedy_goldens(const test_driver& driver) const {
    for (int i = 0; i < num_golden_prompts; ++i) {
      EXPECT_EQ(driver.generated(seq_of(i)), golden_.greedy[static_cast<std::size_t>(i)])
          << "prompt " << i;
    }
  }

  golden_set golden_;
  std::unique_ptr<step_executor> executor_;
};

TEST_P(step_executor_golden, all_prompts_in_one_batch_match_greedy_goldens) {
  test_driver driver(*executor_, {});
  for (int i = 0; i < num_golden_prompts; ++i) driver.add(seq_of(i), golden_.prompts[i]);
  driver.run_to_end();
  expect_greedy_goldens(driver);
  for (int i = 0; i < num_golden_prompts; ++i) {
    EXPECT_TRUE(driver.logprobs(seq_of(i)).empty()) << "not asked for";
  }
}

// The reference: log_softmax of one logits row in double precision.
std::vector<double> log_softmax_of(std::span<const float> row) {
  double max = -INFINITY;
  for (const float l : row) max = std::max(max, double{l});
  double sum = 0.0;
  for (const float l : row) sum += std::exp(double{l} - max);
  const double log_sum = max + std::log(sum);
  std::vector<double> out;
  out.reserve(row.size());
  for (const float l : row) out.push_back(double{l} - log_sum);
  return out;
}

// Our logits differ from HF's by at most 1e-4 * max|logit| (the forward tests' bound); a
// log_softmax value moves by at most twice that.
double logprob_tolerance(std::span<const float> row) {
  double max_abs = 0.0;
  for (const float l : row) max_abs = std::max(max_abs, std::abs(double{l}));
  return 2.5e-4 * max_abs + 1e-6;
}

TEST_P(step_executor_golden, logprobs_are_the_log_softmax_of_the_golden_logits) {
  constexpr std::int32_t num_top = 5;
  sampling_params params = greedy_params();
  params.logprobs = num_top;
  test_driver driver(*executor_, {.chunk = 13, .lookahead = true, .params = params});
  for (int i = 0; i < num_golden_prompts; ++i) driver.add(seq_of(i), golden_.prompts[i]);
  driver.run_to_end();
  expect_greedy_goldens(driver);
  const std::size_t vocab = golden_.config.vocab_size;
  for (int i = 0; i < num_golden_prompts; ++i) {
    const auto& got = driver.logprobs(seq_of(i));
    const auto& greedy = golden_.greedy[static_cast<std::size_t>(i)];
    ASSERT_EQ(got.size(), greedy.size()) << "prompt " << i;
    for (std::size_t k = 0; k < got.size(); ++k) {
      const auto row = std::span<const float>(golden_.greedy_logits[static_cast<std::size_t>(i)])
                           .subspan(k * vocab, vocab);
      const std::vector<double> want = log_softmax_of(row);
      std::vector<double> sorted = want;
      std::sort(sorted.begin(), sorted.end(), std::greater<>());
      const double tol = logprob_tolerance(row);
      SCOPED_TRACE("prompt " + std::to_string(i) + ", token " + std::to_string(k));
      EXPECT_NEAR(got[k].chosen_logprob, want[static_cast<std::size_t>(greedy[k])], tol);
      EXPECT_EQ(got[k].chosen_rank, 1);
      ASSERT_EQ(got[k].top.size(), static_cast<std::size_t>(num_top));
      EXPECT_EQ(got[k].top[0].token, greedy[k]) << "greedy picks the most likely token";
      double mass = 0.0;
      for (std::size_t j = 0; j < got[k].top.size(); ++j) {
        const token_logprob& t = got[k].top[j];
        EXPECT_NEAR(t.logprob, want[static_cast<std::size_t>(t.token)], tol) << "top " << j;
        EXPECT_NEAR(t.logprob, sorted[j], tol) << "top " << j << " is the j-th most likely";
        mass += std::exp(double{t.logprob});
      }
      EXPECT_LE(mass, 1.0 + 1e-6);
    }
  }
}

TEST_P(step_executor_golden, chunked_prefill_with_lookahead_matches_greedy_goldens) {
  // Staggered starts: later prompts prefill in chunks of 13 while earlier ones decode, and
  // each plan is written before the previous step's tokens are known.
  test_driver driver(*executor_, {.chunk = 13, .lookahead = true});
  for (int i = 0; i < num_golden_prompts; ++i) {
    driver.add(seq_of(i), golden_.prompts[i], static_cast<std::uint64_t>(2 * i));
  }
  driver.run_to_end();
  expect_greedy_goldens(driver);
}

TEST_P(step_executor_golden, preempted_sequences_resume_with_greedy_goldens) {
  test_driver driver(*executor_, {.chunk = 13, .lookahead = true});
  for (int i = 0; i < num_golden_prompts; ++i) driver.add(seq_of(i), golden_.prompts[i]);
  for (int guard = 0; driver.next_step() < 12 && guard < 20; ++guard) {
    if (driver.next_step() == 4) driver.preempt_next(seq_of(3));   // mid-prefill
    if (driver.next_step() == 10) driver.preempt_next(seq_of(1));  // decoding
    ASSERT_TRUE(driver.step().ok());
  }
  EXPECT_EQ(executor_->num_live_sequences(), 4U);  // preempted ones keep their sampling
  driver.run_to_end();
  expect_greedy_goldens(driver);
}

INSTANTIATE_TEST_SUITE_P(models, step_executor_golden,
                         ::testing::Values("tiny-llama", "tiny-llama-bf16", "tiny-qwen2",
                                           "tiny-qwen3"),
                         model_test_name);

TEST(step_executor, seeded_sampling_does_not_notice_a_preemption) {
  const golden_set g = load_golden("tiny-llama");
  sampling_params params;
  params.temperature = 0.8f;
  params.seed = 7;
  auto generate = [&](bool with_preemption) {
    auto executor = make_executor(g);
    test_driver driver(*executor, {.chunk = 13, .lookahead = true, .params = params});
    for (int i = 0; i < num_golden_prompts; ++i) driver.add(seq_of(i), g.prompts[i]);
    for (int guard = 0; with_preemption && driver.next_step() < 16 && guard < 20; ++guard) {
      if (driver.next_step() == 15) driver.preempt_next(seq_of(0));
      if (driver.next_step() == 15) driver.preempt_next(seq_of(2));
      EXPECT_TRUE(driver.step().ok());
    }
    driver.run_to_end();
    std::vector<std::vector<token_id>> out;
    for (int i = 0; i < num_golden_prompts; ++i) out.push_back(driver.generated(seq_of(i)));
    return out;
  };
  const auto plain = generate(false);
  const auto preempted = generate(true);
  EXPECT_EQ(plain, preempted);
  EXPECT_NE(plain, g.greedy) << "temperature 0.8 should not reproduce greedy";
}

TEST(step_executor, logprobs_describe_the_raw_distribution_not_the_sampling_one) {
  // top_k = 1 at temperature 0.5 samples the greedy tokens, but from a sharpened and
  // truncated distribution; the logprobs must still be those of the plain logits.
  const golden_set g = load_golden("tiny-qwen2");
  auto run = [&](sampling_params params) {
    params.logprobs = 3;
    auto executor = make_executor(g);
    test_driver driver(*executor, {.params = params});
    for (int i = 0; i < num_golden_prompts; ++i) driver.add(seq_of(i), g.prompts[i]);
    driver.run_to_end();
    std::vector<std::vector<logprobs_result>> out;
    for (int i = 0; i < num_golden_prompts; ++i) {
      EXPECT_EQ(driver.generated(seq_of(i)), g.greedy[static_cast<std::size_t>(i)]);
      out.push_back(driver.logprobs(seq_of(i)));
    }
    return out;
  };
  sampling_params truncated;
  truncated.temperature = 0.5f;
  truncated.top_k = 1;
  truncated.seed = 3;
  const auto plain = run(greedy_params());
  const auto sharpened = run(truncated);
  for (int i = 0; i < num_golden_prompts; ++i) {
    const auto& a = plain[static_cast<std::size_t>(i)];
    const auto& b = sharpened[static_cast<std::size_t>(i)];
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t k = 0; k < a.size(); ++k) {
      EXPECT_EQ(a[k].chosen_logprob, b[k].chosen_logprob) << "prompt " << i << " token " << k;
      ASSERT_EQ(a[k].top.size(), b[k].top.size());
      for (std::size_t j = 0; j < a[k].top.size(); ++j) {
        EXPECT_EQ(a[k].top[j].token, b[k].top[j].token);
        EXPECT_EQ(a[k].top[j].logprob, b[k].top[j].logprob);
      }
    }
  }
}

TEST(step_executor_death, plans_that_contradict_the_state_abort_with_context) {
  const golden_set g = load_golden("tiny-llama");
  auto executor = make_executor(g);
  ASSERT_NE(executor, nullptr);
  sched::scheduled_sequence entry;
  entry.seq = seq_id{4};
  entry.kind = schedule_kind::new_sequence;
  entry.token_ids = g.prompts[1];
  entry.num_scheduled_tokens = static_cast<std::uint32_t>(g.prompts[1].size());
  entry.samples = true;
  entry.block_ids = {block_id{0}};
  step_plan plan;
  plan.scheduled = {entry};
  // No sequence_sampling for a new sequence.
  EXPECT_DEATH((void)executor->run(plan, {}), "sequence 4: new sequence scheduled without");
  // Positions beyond the tokens known (the plan skipped a step).
  const sequence_sampling added{entry.seq, greedy_params(), 0};
  ASSERT_TRUE(executor->run(plan, {&added, 1}).ok());
  entry.kind = schedule_kind::continuing;
  entry.token_ids.clear();
  entry.block_ids.clear();
  entry.first_position = static_cast<std::uint32_t>(g.prompts[1].size());
  entry.num_scheduled_tokens = 2;
  plan.step = 1;
  plan.scheduled = {entry};
  EXPECT_DEATH((void)executor->run(plan, {}), "step 1, sequence 4: tokens not known yet");
}

TEST(step_executor, failed_step_drops_its_sequences_and_later_steps_still_run) {
  const golden_set g = load_golden("tiny-llama");
  constexpr std::uint64_t failing_step = 3;
  auto executor = make_executor(g, [](std::uint64_t step) {
    if (step == failing_step) throw std::runtime_error("injected fault");
  });
  ASSERT_NE(executor, nullptr);
  test_driver driver(*executor, {.lookahead = true});
  driver.add(seq_of(1), g.prompts[1]);
  driver.add(seq_of(2), g.prompts[2]);
  driver.add(seq_of(0), g.prompts[0]);
  // Steps 0..3 are submitted, 0..2 collected (the driver keeps one step in flight).
  for (int guard = 0; driver.next_step() <= failing_step && guard < 10; ++guard) {
    if (driver.next_step() == 2) driver.preempt_next(seq_of(0));  // not in the failing step
    ASSERT_TRUE(driver.step().ok());
  }
  EXPECT_EQ(executor->num_live_sequences(),
            1U);  // step 3's went at once: the preempted one is left

  // The next plan still names the failed sequences (written before the failure was known):
  // they are skipped and answered with token 0; a new sequence joins in the same step.
  driver.add(seq_of(3), g.prompts[3]);
  const auto failed = driver.step();  // submits step 4, collects step 3
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.err().code, error_code::internal);
  EXPECT_NE(failed.err().message.find("step 3"), std::string::npos) << failed.err().message;
  EXPECT_NE(failed.err().message.find("injected fault"), std::string::npos);
  const auto next = driver.step();  // collects step 4
  ASSERT_TRUE(next.ok()) << next.err().message;
  int num_failed_answered = 0;
  for (const sched::sampled_token& t : next->sampled) {
    if (t.seq == seq_of(1) || t.seq == seq_of(2)) {
      EXPECT_EQ(t.token, 0) << t.seq.value();
      ++num_failed_answered;
    }
  }
  EXPECT_EQ(num_failed_answered, 2);
  driver.stop(seq_of(1));
  driver.stop(seq_of(2));
  driver.run_to_end();
  EXPECT_EQ(driver.generated(seq_of(0)), g.greedy[0]);
  EXPECT_EQ(driver.generated(seq_of(3)), g.greedy[3]);
}

TEST(step_executor, empty_plan_is_valid) {
  const golden_set g = load_golden("tiny-qwen2");
  auto executor = make_executor(g);
  ASSERT_NE(executor, nullptr);
  step_plan plan;
  plan.step = 5;
  plan.finished = {seq_id{9}};
  plan.preempted = {seq_id{10}};
  const auto out = executor->run(plan, {});
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->step, 5U);
  EXPECT_TRUE(out->sampled.empty());
}

// The plan for `config` on the CPU backend (no pool is allocated).
result<engine_plan> cpu_plan(const golden_set& g, const engine_config& config) {
  auto backend = kernels::make_cpu_backend();
  auto weights = forward::upload_model_weights(*backend, g.config, *g.weights);
  if (!weights) return weights.err();
  forward::model_forward fwd(*backend, g.config, std::move(*weights));
  return plan_engine(config, fwd);
}

// num_blocks 0 on the CPU (no device memory to plan from): max_num_seqs sequences of
// max_model_len, capped at 1 GiB of fp32 K and V (engine_plan.h), never below one sequence.
TEST(engine_plan, cpu_pool_defaults_to_max_num_seqs_sequences_capped_at_one_gib) {
  const golden_set g = load_golden("tiny-llama");
  // K and V, every layer, one block: 2 x layers x block_size x kv_heads x head_dim x 4 bytes.
  const std::int64_t bytes_per_block =
      2 * g.config.num_layers * block_size * g.config.num_kv_heads * g.config.head_dim * 4;
  engine_config config;
  config.sched.block_size = block_size;
  config.sched.num_blocks = 0;
  config.sched.max_model_len = 64;
  config.sched.max_num_seqs = 3;
  const auto small = cpu_plan(g, config);
  ASSERT_TRUE(small.ok()) << small.err().message;
  EXPECT_EQ(small->sizing, pool_sizing::default_for_host);
  EXPECT_EQ(small->sched.num_blocks, 3U * (64 / block_size));
  EXPECT_EQ(small->bytes_per_block, bytes_per_block);
  EXPECT_EQ(small->kv_bytes, (3 * (64 / block_size) + 1) * bytes_per_block);
  EXPECT_TRUE(small->decode_graph_batch_sizes.empty());  // nothing to capture on the CPU

  config.sched.max_model_len = 2048;
  config.sched.max_num_seqs = 1 << 20;  // far more than 1 GiB holds
  const auto capped = cpu_plan(g, config);
  ASSERT_TRUE(capped.ok()) << capped.err().message;
  EXPECT_EQ(std::int64_t{capped->sched.num_blocks}, (std::int64_t{1} << 30) / bytes_per_block);

  config.sched.num_blocks = 40;  // set: taken as it is
  const auto configured = cpu_plan(g, config);
  ASSERT_TRUE(configured.ok()) << configured.err().message;
  EXPECT_EQ(configured->sizing, pool_sizing::configured);
  EXPECT_EQ(configured->sched.num_blocks, 40U);
}

// kv_cache_dtype fp8_e4m3: one byte per K/V element, a quarter of the fp32 block, so the same
// 1 GiB cap plans four times the blocks and four times the concurrency.
TEST(engine_plan, fp8_kv_cache_quarters_the_fp32_block_and_quadruples_concurrency) {
  const golden_set g = load_golden("tiny-llama");
  const std::int64_t fp8_bytes_per_block =
      2 * g.config.num_layers * block_size * g.config.num_kv_heads * g.config.head_dim * 1;
  engine_config config;
  config.sched.block_size = block_size;
  config.sched.num_blocks = 0;
  config.sched.max_model_len = 2048;
  config.sched.max_num_seqs = 1 << 20;
  const auto fp32 = cpu_plan(g, config);
  config.kv_cache_dtype = "fp8_e4m3";
  const auto fp8 = cpu_plan(g, config);
  ASSERT_TRUE(fp32.ok() && fp8.ok());
  EXPECT_EQ(fp8->bytes_per_block, fp8_bytes_per_block);
  EXPECT_EQ(fp32->bytes_per_block, 4 * fp8_bytes_per_block);
  EXPECT_EQ(std::int64_t{fp8->sched.num_blocks}, (std::int64_t{1} << 30) / fp8_bytes_per_block);
  EXPECT_NEAR(fp8->max_concurrency(), 4.0 * fp32->max_concurrency(), 1e-3 * fp8->max_concurrency());
}

TEST(step_executor, weights_of_another_model_are_an_error) {
  const golden_set llama = load_golden("tiny-llama");
  const golden_set qwen = load_golden("tiny-qwen2");
  engine_config config;
  config.sched.num_blocks = 16;
  EXPECT_FALSE(start_executor(config, qwen.config, *llama.weights).ok());
}

}  // namespace
}  // namespace pagedserve
