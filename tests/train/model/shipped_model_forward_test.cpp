// The shipped demo model (models/pagedserve-demo, the default model) through the engine's
// forward (runtime/forward on the CPU backend, loaded the way `serve` loads it) and through
// the trainer's own forward (train/model): the two share no forward code, so equal logits on
// held-out text check both, and check that the HF folder the trainer wrote means to the
// engine what it meant to the trainer.

#include <gtest/gtest.h>

#include <cmath>

#include "runtime/engine/built_in_model.h"
#include "runtime/model/model_config.h"
#include "tests/train/model/shipped_model_support.h"
#include "train/model/checkpoint_io.h"
#include "train/model/transformer.h"

namespace pagedserve::train {
namespace {

// Paragraphs of the held-out documents (build-corpus/text/heldout.txt): never trained on.
const char* const heldout_paragraphs[] = {
    "Two British civil servants, Miss Ethel Gee, 46, and her newly devoted friend, Harry "
    "Houghton, 55, and divorced. They are accused of whisking secrets out of naval strongrooms "
    "over which they kept guard.",
    "The vast Central Valley of California is one of the most productive agricultural areas in "
    "the world. During the summer of 1960, it became the setting for a bitter and basic "
    "labor-management struggle.",
    "Dill's voice tightened. \"But you can't ride into the Ferry. That's what they'll expect "
    "you to do. They'll be there waiting for you. I understand how you feel about the child.\"",
};

TEST(ShippedDemoModel, TheEngineReproducesTheTrainersForwardOnHeldOutText) {
  // The default engine_config: the built-in model, found as `serve` finds it.
  eval::eval_model engine = testing::load_engine_model_or_fail(engine_config{});
  ASSERT_NE(engine.forward, nullptr);
  ASSERT_NE(engine.tok, nullptr);
  EXPECT_EQ(engine.config.name, built_in_model_name);
  const model_shape shape = testing::shape_of(engine.config);
  const parameter_layout layout(shape);
  auto dir = built_in_model_dir();
  ASSERT_TRUE(dir.ok()) << dir.err().message;
  std::vector<float> params;
  const status read = read_safetensors(*dir / "model.safetensors", layout, "", params);
  ASSERT_TRUE(read.ok()) << read.err().message;

  for (const char* text : heldout_paragraphs) {
    const std::vector<token_id> ids = engine.tok->encode(text, true);
    const auto n = static_cast<std::int64_t>(ids.size());
    eval::sequence_prefill prefill(*engine.forward, n, 16);
    const forward::forward_output out = prefill.run_chunk(ids, 0, n);
    transformer trainer(layout, 1, n);
    const std::vector<std::int32_t> tokens(ids.begin(), ids.end());
    trainer.forward(params, tokens.data());
    const std::vector<float>& expected = trainer.acts().logits;
    ASSERT_EQ(out.all_logits.size(), expected.size());
    double worst = 0.0;
    double largest = 0.0;
    for (std::size_t i = 0; i < expected.size(); ++i) {
      worst = std::max(worst, static_cast<double>(std::abs(out.all_logits[i] - expected[i])));
      largest = std::max(largest, static_cast<double>(std::abs(expected[i])));
    }
    std::printf("%lld tokens: max |engine - trainer| = %.2e (largest logit %.1f)\n",
                static_cast<long long>(n), worst, largest);
    // The engine's bound for fp32 logits against HF (tests/runtime/forward/logits_match.h).
    EXPECT_LE(worst, 1e-4 * largest) << text;
  }
}

}  // namespace
}  // namespace pagedserve::train
