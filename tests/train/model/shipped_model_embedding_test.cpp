// Embeddings (sampling_params::pooling) of the shipped demo model through the whole engine
// (the facade, its actors, the scheduler's chunked prefill, the executor's row reads) against
// the trainer's own forward (train/model), which shares no code with the engine: its final
// hidden states (acts().x_final, the final norm's output) pooled by hand. The prompts are
// longer than the step budget, so every embedding spans several prefill chunks; the same
// prompt twice checks that mean and CLS pooling never take positions from the prefix cache.

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <condition_variable>
#include <mutex>

#include "actors/engine.h"
#include "runtime/engine/built_in_model.h"
#include "tests/train/model/shipped_model_support.h"
#include "train/model/checkpoint_io.h"
#include "train/model/transformer.h"

namespace pagedserve::train {
namespace {

// Runs one request to its final; the embedding its chunk carried and its prompt tokens.
struct embedded {
  std::vector<float> embedding;
  std::uint32_t prompt_tokens = 0;
  finish_reason reason = finish_reason::error;
  std::size_t num_token_ids = 0;
};

embedded embed(engine& e, const std::vector<token_id>& prompt, const pooling_params& pooling) {
  generation_request request;
  request.prompt_token_ids = prompt;
  request.sampling.pooling = pooling;
  std::mutex mutex;
  std::condition_variable done;
  embedded out;
  bool finished = false;
  auto id = e.submit(request, [&](const engine_event& event) {
    const std::scoped_lock lock(mutex);
    if (const auto* chunk = std::get_if<token_chunk>(&event)) {
      if (!chunk->embedding.empty()) out.embedding = chunk->embedding;
      out.num_token_ids += chunk->token_ids.size();
    } else if (const auto* final = std::get_if<request_final>(&event)) {
      out.prompt_tokens = final->usage.prompt_tokens;
      out.reason = final->reason;
      finished = true;
      done.notify_all();
    }
  });
  EXPECT_TRUE(id.ok()) << (id.ok() ? "" : id.err().message);
  std::unique_lock lock(mutex);
  EXPECT_TRUE(done.wait_for(lock, std::chrono::seconds(60), [&] { return finished; }));
  return out;
}

// The trainer's pooled hidden states of `ids`, with the same cut and normalisation.
std::vector<double> reference(const parameter_layout& layout, const std::vector<float>& params,
                              const std::vector<token_id>& ids, const pooling_params& pooling) {
  const auto n = static_cast<std::int64_t>(ids.size());
  transformer trainer(layout, 1, n);
  const std::vector<std::int32_t> tokens(ids.begin(), ids.end());
  trainer.forward(params, tokens.data());
  const std::vector<float>& h = trainer.acts().x_final;  // the final norm's output
  const auto d = static_cast<std::size_t>(h.size() / ids.size());
  std::vector<double> v(d, 0.0);
  const auto row = [&](std::size_t r, double w) {
    for (std::size_t j = 0; j < d; ++j) v[j] += w * h[r * d + j];
  };
  if (pooling.type == pooling_type::last) row(ids.size() - 1, 1.0);
  if (pooling.type == pooling_type::cls) row(0, 1.0);
  if (pooling.type == pooling_type::mean) {
    for (std::size_t r = 0; r < ids.size(); ++r) row(r, 1.0 / static_cast<double>(ids.size()));
  }
  if (pooling.dimensions) v.resize(*pooling.dimensions);
  if (pooling.normalize) {
    double norm = 0.0;
    for (const double x : v) norm += x * x;
    for (double& x : v) x /= std::sqrt(norm);
  }
  return v;
}

TEST(ShippedDemoModelEmbeddings, PooledHiddenStatesAreTheTrainersAcrossPrefillChunks) {
  engine_config config;                      // the built-in model, as `serve` finds it
  config.sched.max_num_batched_tokens = 24;  // prompts of ~40 tokens take several steps
  config.sched.max_model_len = 256;
  config.sched.num_blocks = 64;
  auto started = engine::start(config);
  ASSERT_TRUE(started.ok()) << started.err().message;
  engine& e = **started;
  eval::eval_model model = testing::load_engine_model_or_fail(config);
  const parameter_layout layout(testing::shape_of(model.config));
  auto dir = built_in_model_dir();
  ASSERT_TRUE(dir.ok()) << dir.err().message;
  std::vector<float> params;
  ASSERT_TRUE(read_safetensors(*dir / "model.safetensors", layout, "", params).ok());

  const std::vector<token_id> ids = model.tok->encode(
      "The vast Central Valley of California is one of the most productive agricultural areas "
      "in the world.",
      true);
  ASSERT_GT(ids.size(), 2 * config.sched.max_num_batched_tokens / 2);
  const pooling_params cases[] = {{pooling_type::last, std::nullopt, false},
                                  {pooling_type::mean, std::nullopt, false},
                                  {pooling_type::cls, std::nullopt, false},
                                  {pooling_type::mean, 32, true},
                                  {pooling_type::last, std::nullopt, true}};
  for (const pooling_params& pooling : cases) {
    const std::vector<double> want = reference(layout, params, ids, pooling);
    for (int round = 0; round < 2; ++round) {  // the second finds the prompt in the cache
      const embedded got = embed(e, ids, pooling);
      SCOPED_TRACE(std::string(to_string(pooling.type)) + " round " + std::to_string(round));
      EXPECT_EQ(got.reason, finish_reason::stop);
      EXPECT_EQ(got.num_token_ids, 0U);  // nothing generated, nothing shown
      EXPECT_EQ(got.prompt_tokens, ids.size());
      ASSERT_EQ(got.embedding.size(), want.size());
      double worst = 0.0;
      double largest = 0.0;
      for (std::size_t j = 0; j < want.size(); ++j) {
        worst = std::max(worst, std::abs(got.embedding[j] - want[j]));
        largest = std::max(largest, std::abs(want[j]));
      }
      // The engine's fp32 bound against an independent forward (as the logits' test).
      EXPECT_LE(worst, 1e-4 * largest);
    }
  }
  EXPECT_EQ(e.shutdown(std::chrono::seconds(5)).num_leaked_blocks, 0U);
}

}  // namespace
}  // namespace pagedserve::train
