// The whole engine (intake, scheduler, the executor actor's pipelined steps, device sampling,
// decode graphs, a KV pool planned from device memory, speculative decoding) on the CUDA
// backend at fp32, against the CPU engine and the HF goldens. Built as test_engine_cuda for the GPU
// (label gpu) and, where backend cuda runs on the SIMT emulator (PAGEDSERVE_EMULATED_CUDA_BACKEND:
// the CI sanitizer build), as test_engine_simt.

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "actors/engine.h"
#include "kernels/cuda/device_info.h"
#include "tests/actors/engine_test_support.h"
#include "tests/runtime/worker/golden_set.h"
#include "tests/support/fixtures.h"

namespace pagedserve {
namespace {

using engine_testing::golden_set;
using engine_testing::load_golden;
using engine_testing::num_golden_prompts;
using testing::event_recorder;
using testing::greedy_request;

engine_config golden_engine_config(const std::string& model, const std::string& backend) {
  engine_config config;
  config.model_dir = (testing::goldens_dir() / "models" / model).string();
  config.backend = backend;
  config.dtype = "float32";
  config.sched.max_num_seqs = 4;  // decode graphs for 1, 2 and 4 sequences
  config.sched.max_model_len = 128;
  config.sched.max_num_batched_tokens = 64;  // prompts prefill in chunks beside decodes
  if (backend == "cpu") {
    config.sched.num_blocks = 64;
  } else {
    config.sched.num_blocks = 0;  // planned from the device's memory
    config.gpu_memory_utilization = 0.05;
  }
  return config;
}

std::unique_ptr<engine> start(const engine_config& config) {
  auto e = engine::start(config);
  EXPECT_TRUE(e.ok()) << (e.ok() ? "" : e.err().message);
  return e.ok() ? std::move(*e) : nullptr;
}

// Every prompt of the golden set at once, `params` for each; the tokens of each request.
std::vector<std::vector<token_id>> generate_all(engine& e, const golden_set& g,
                                                const sampling_params& params,
                                                std::uint32_t max_tokens) {
  std::vector<event_recorder> recorders(num_golden_prompts);
  for (int i = 0; i < num_golden_prompts; ++i) {
    generation_request request;
    request.prompt_token_ids = g.prompts[static_cast<std::size_t>(i)];
    request.sampling = params;  // with the golden length, past EOS
    request.sampling.max_tokens = max_tokens;
    request.sampling.ignore_eos = true;
    const auto id = e.submit(std::move(request), recorders[static_cast<std::size_t>(i)].callback());
    EXPECT_TRUE(id.ok()) << (id.ok() ? "" : id.err().message);
  }
  std::vector<std::vector<token_id>> out;
  for (const event_recorder& r : recorders) {
    EXPECT_TRUE(r.wait_for_finals());
    const auto finals = r.finals();
    EXPECT_EQ(finals.size(), 1U);
    if (!finals.empty()) {
      EXPECT_EQ(finals[0].reason, finish_reason::length) << finals[0].error_message;
    }
    out.push_back(r.tokens());
  }
  return out;
}

// The CUDA build runs this on a GPU only (label gpu); elsewhere it skips.
#define SKIP_WITHOUT_DEVICE()                                                          \
  do {                                                                                 \
    std::string why;                                                                   \
    if (!kernels::cuda::query_device(&why)) GTEST_SKIP() << "no CUDA device: " << why; \
  } while (false)

class engine_cuda_golden : public ::testing::TestWithParam<std::string> {};

TEST_P(engine_cuda_golden, greedy_tokens_equal_the_cpu_engines_and_the_goldens) {
  SKIP_WITHOUT_DEVICE();
  const golden_set g = load_golden(GetParam());
  const auto max_tokens = static_cast<std::uint32_t>(g.greedy[0].size());
  sampling_params greedy;
  greedy.temperature = 0.0f;

  auto gpu = start(golden_engine_config(GetParam(), "cuda"));
  ASSERT_NE(gpu, nullptr);
  const auto on_gpu = generate_all(*gpu, g, greedy, max_tokens);
  const engine_stats stats = gpu->stats();
  EXPECT_EQ(gpu->shutdown(std::chrono::seconds(30)).num_leaked_blocks, 0U);
  EXPECT_GT(stats.num_graph_steps, 0U) << "decode steps replay graphs";
  EXPECT_LT(stats.num_graph_steps, stats.num_steps) << "prefill steps run eagerly";
  EXPECT_GT(stats.device_busy_s, 0.0) << "the markers' clock times every step";
  EXPECT_GE(stats.device_idle_s, 0.0);
  EXPECT_GT(stats.executor_host_s, 0.0);
  EXPECT_LE(stats.executor_host_s, stats.executor_busy_s);

  auto cpu = start(golden_engine_config(GetParam(), "cpu"));
  ASSERT_NE(cpu, nullptr);
  const auto on_cpu = generate_all(*cpu, g, greedy, max_tokens);
  const engine_stats cpu_stats = cpu->stats();
  EXPECT_EQ(cpu->shutdown(std::chrono::seconds(30)).num_leaked_blocks, 0U);
  EXPECT_EQ(cpu_stats.num_graph_steps, 0U);
  EXPECT_EQ(cpu_stats.device_busy_s, 0.0) << "the CPU keeps no device clock";

  for (int i = 0; i < num_golden_prompts; ++i) {
    const auto k = static_cast<std::size_t>(i);
    EXPECT_EQ(on_gpu[k], on_cpu[k]) << "prompt " << i;
    EXPECT_EQ(on_gpu[k], g.greedy[k]) << "prompt " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(models, engine_cuda_golden,
                         ::testing::Values("tiny-llama", "tiny-qwen2", "tiny-qwen3"),
                         forward::testing::model_test_name);

// Seeded sampling through the whole engine: the device sampler makes the host sampler's
// picks, whatever the batch and the pipeline do.
TEST(engine_cuda, seeded_sampling_equals_the_cpu_engine) {
  SKIP_WITHOUT_DEVICE();
  const golden_set g = load_golden("tiny-llama");
  sampling_params params;
  params.temperature = 0.8f;
  params.top_k = 50;
  params.min_p = 0.02f;
  params.seed = 99;
  auto gpu = start(golden_engine_config("tiny-llama", "cuda"));
  ASSERT_NE(gpu, nullptr);
  const auto on_gpu = generate_all(*gpu, g, params, 20);
  EXPECT_EQ(gpu->shutdown(std::chrono::seconds(30)).num_leaked_blocks, 0U);
  auto cpu = start(golden_engine_config("tiny-llama", "cpu"));
  ASSERT_NE(cpu, nullptr);
  const auto on_cpu = generate_all(*cpu, g, params, 20);
  EXPECT_EQ(cpu->shutdown(std::chrono::seconds(30)).num_leaked_blocks, 0U);
  EXPECT_EQ(on_gpu, on_cpu);
}

// Speculative decoding on the device backend: the forward (the target's and the draft's, in
// the same device pool) runs there, verification on the host. Greedy tokens are the goldens'
// with n-gram proposals and with the golden drafting for itself, which accepts nearly every
// proposal (a draft reading the wrong K/V would propose noise); no block leaks.
TEST(engine_cuda, speculative_decoding_gives_the_goldens_greedy_tokens) {
  SKIP_WITHOUT_DEVICE();
  const golden_set g = load_golden("tiny-qwen3");
  const auto max_tokens = static_cast<std::uint32_t>(g.greedy[0].size());
  sampling_params greedy;
  greedy.temperature = 0.0f;
  speculative_config ngram;
  ngram.method = speculative_method::ngram;
  ngram.num_speculative_tokens = 3;
  ngram.prompt_lookup_min = 1;
  ngram.prompt_lookup_max = 3;
  ngram.adaptive = false;
  speculative_config draft = ngram;
  draft.method = speculative_method::draft_model;
  draft.model = (testing::goldens_dir() / "models" / "tiny-qwen3").string();
  for (const speculative_config& speculative : {ngram, draft}) {
    SCOPED_TRACE(std::string(to_string(speculative.method)));
    engine_config config = golden_engine_config("tiny-qwen3", "cuda");
    config.speculative = speculative;
    auto gpu = start(config);
    ASSERT_NE(gpu, nullptr);
    const auto on_gpu = generate_all(*gpu, g, greedy, max_tokens);
    const engine_stats stats = gpu->stats();
    EXPECT_EQ(gpu->shutdown(std::chrono::seconds(30)).num_leaked_blocks, 0U);
    for (int i = 0; i < num_golden_prompts; ++i) {
      EXPECT_EQ(on_gpu[static_cast<std::size_t>(i)], g.greedy[static_cast<std::size_t>(i)])
          << "prompt " << i;
    }
    EXPECT_GT(stats.spec_decode_num_draft_tokens, 0U);
    if (speculative.method == speculative_method::draft_model) {
      EXPECT_GE(static_cast<double>(stats.spec_decode_num_accepted_tokens),
                0.95 * static_cast<double>(stats.spec_decode_num_draft_tokens));
    }
  }
}

// A request cancelled while its steps are in flight on the device ends with a cancelled
// final, gives its blocks back, and leaves the others' tokens as they would have been.
TEST(engine_cuda, cancelling_mid_stream_leaves_the_others_exact) {
  SKIP_WITHOUT_DEVICE();
  const golden_set g = load_golden("tiny-qwen3");
  auto gpu = start(golden_engine_config("tiny-qwen3", "cuda"));
  ASSERT_NE(gpu, nullptr);
  const auto max_tokens = static_cast<std::uint32_t>(g.greedy[0].size());
  event_recorder doomed;
  const auto doomed_id = gpu->submit(greedy_request(g.prompts[0], 100), doomed.callback());
  ASSERT_TRUE(doomed_id.ok());
  ASSERT_TRUE(doomed.wait_for_first_chunk());
  event_recorder kept;
  ASSERT_TRUE(gpu->submit(greedy_request(g.prompts[1], max_tokens), kept.callback()).ok());
  gpu->cancel(*doomed_id);
  ASSERT_TRUE(doomed.wait_for_finals());
  ASSERT_TRUE(kept.wait_for_finals());
  ASSERT_EQ(doomed.finals().size(), 1U);
  EXPECT_EQ(doomed.finals()[0].reason, finish_reason::cancelled);
  EXPECT_EQ(doomed.num_chunks_after_final(), 0U);
  EXPECT_EQ(kept.tokens(), g.greedy[1]);
  EXPECT_EQ(gpu->shutdown(std::chrono::seconds(30)).num_leaked_blocks, 0U);
}

}  // namespace
}  // namespace pagedserve
