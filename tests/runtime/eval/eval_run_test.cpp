// run_eval end to end on the CPU backend: the demo model against itself (exactly equal
// figures), chunked prefill against one forward, and perplexity on the HF goldens' prompts
// against exp(mean NLL) computed here from the goldens' reference logits.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "runtime/eval/eval_model.h"
#include "runtime/eval/eval_run.h"
#include "tests/runtime/forward/golden_model.h"

namespace pagedserve::eval {
namespace {

using forward::testing::golden_model;

eval_model demo_model(std::uint64_t seed = 0) {
  engine_config config;
  config.model_dir = "demo-random";  // seeded random weights, vocabulary 512
  config.weights_seed = seed;
  auto model = load_eval_model(config);
  EXPECT_TRUE(model) << (model ? "" : model.err().message);
  return std::move(*model);
}

// Lines of 1, 20 and 50 ids spread over the demo vocabulary (512).
std::vector<std::vector<token_id>> demo_lines() {
  std::vector<std::vector<token_id>> lines;
  for (const int length : {1, 20, 50}) {
    std::vector<token_id> line;
    for (int i = 0; i < length; ++i) line.push_back((i * 131 + length * 7 + 1) % 512);
    lines.push_back(line);
  }
  return lines;
}

TEST(EvalRun, TheDemoModelAgainstItselfAgreesExactly) {
  eval_model model = demo_model();
  eval_model reference = demo_model();
  const eval_summary s =
      run_eval(*model.forward, reference.forward.get(), demo_lines(), {16, 8192});
  EXPECT_EQ(s.num_lines, 3u);
  EXPECT_EQ(s.num_scored_tokens, 0u + 19u + 49u);
  ASSERT_TRUE(s.reference.has_value());
  EXPECT_NEAR(s.reference->mean_kl, 0.0, 1e-9);
  EXPECT_EQ(s.reference->top1_agreement, 1.0);
  EXPECT_EQ(s.reference->max_abs_logit_diff, 0.0);
  EXPECT_EQ(s.perplexity, s.reference->perplexity);
  EXPECT_GT(s.perplexity, 1.0);
}

TEST(EvalRun, DemoModelsOfAnotherSeedDiffer) {
  eval_model model = demo_model(0);
  eval_model reference = demo_model(1);
  const eval_summary s =
      run_eval(*model.forward, reference.forward.get(), demo_lines(), {16, 8192});
  ASSERT_TRUE(s.reference.has_value());
  EXPECT_GT(s.reference->mean_kl, 1e-3);
  EXPECT_GT(s.reference->max_abs_logit_diff, 1e-3);
  EXPECT_NE(s.perplexity, s.reference->perplexity);
}

TEST(EvalRun, ChunkedPrefillScoresAsOneForward) {
  eval_model model = demo_model();
  const auto lines = demo_lines();
  const eval_summary whole = run_eval(*model.forward, nullptr, lines, {16, 8192});
  const eval_summary chunked = run_eval(*model.forward, nullptr, lines, {4, 7});
  EXPECT_EQ(chunked.num_scored_tokens, whole.num_scored_tokens);
  // The same fp32 arithmetic per row up to summation order in attention.
  EXPECT_NEAR(chunked.mean_nll, whole.mean_nll, 1e-5);
  EXPECT_FALSE(whole.reference.has_value());
}

TEST(EvalRun, ChunksShrinkSoALargeVocabularysLogitsStayBounded) {
  EXPECT_EQ(chunk_tokens({16, 8192}, 512), 8192);
  // 256 MiB / (128256 * 4 bytes) = 523.2 rows
  EXPECT_EQ(chunk_tokens({16, 8192}, 128256), 523);
  EXPECT_EQ(chunk_tokens({16, 8192}, std::int64_t{1} << 40), 1);
}

// The goldens' figures, computed here independently of runtime/eval: mean over positions
// p < T - 1 of -log_softmax(logits[p])[ids[p + 1]], in double.
struct golden_figures {
  double mean_nll = 0.0;
  double max_abs_logit = 0.0;
};

golden_figures golden_nll(const golden_model& m, const std::vector<std::size_t>& prompts) {
  const auto vocab = static_cast<std::size_t>(m.config.vocab_size);
  double sum = 0.0;
  std::size_t n = 0;
  golden_figures g;
  for (const std::size_t i : prompts) {
    const auto& p = m.prompts[i];
    for (std::size_t pos = 0; pos + 1 < p.ids.size(); ++pos) {
      const float* row = p.logits.data() + pos * vocab;
      const double max = *std::max_element(row, row + vocab);
      double z = 0.0;
      for (std::size_t v = 0; v < vocab; ++v) z += std::exp(row[v] - max);
      sum += max + std::log(z) - row[static_cast<std::size_t>(p.ids[pos + 1])];
      ++n;
    }
    for (const float x : p.logits) g.max_abs_logit = std::max(g.max_abs_logit, std::abs(double{x}));
  }
  g.mean_nll = sum / static_cast<double>(n);
  return g;
}

class eval_on_goldens : public ::testing::TestWithParam<std::string> {};

TEST_P(eval_on_goldens, PerplexityMatchesTheHfLogits) {
  golden_model m = golden_model::load(GetParam());
  // Prompts 1-3 (7, 33 and 100 tokens; prompt 0 has one token and scores nothing), in
  // chunks of 7 through blocks of 4 so chunk and block edges fall inside every long line.
  const std::vector<std::size_t> prompts{1, 2, 3};
  std::vector<std::vector<token_id>> lines;
  for (const std::size_t i : prompts) lines.push_back(m.prompts[i].ids);
  const eval_summary s = run_eval(*m.forward, nullptr, lines, {4, 7});
  const golden_figures g = golden_nll(m, prompts);
  EXPECT_EQ(s.num_scored_tokens, 6u + 32u + 99u);
  // Our fp32 logits match HF's within eps = 1e-4 * max|logit| (logits_match, held by the
  // golden forward tests). A log-softmax entry x_t - logsumexp(x) moves by at most
  // |dx_t| + max|dx| <= 2 eps, so the mean NLL (= ln perplexity) moves by at most 2 eps.
  const double bound = 2.0 * 1e-4 * g.max_abs_logit;
  EXPECT_NEAR(std::log(s.perplexity), g.mean_nll, bound);
  EXPECT_NEAR(s.mean_nll, g.mean_nll, bound);
}

INSTANTIATE_TEST_SUITE_P(models, eval_on_goldens,
                         ::testing::Values("tiny-llama", "tiny-llama-bf16", "tiny-qwen2",
                                           "tiny-qwen3"),
                         forward::testing::model_test_name);

}  // namespace
}  // namespace pagedserve::eval
