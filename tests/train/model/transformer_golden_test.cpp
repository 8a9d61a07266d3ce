// The trainer's forward against HF transformers: the tiny-llama golden model's weights
// (tests/data/goldens, written by transformers' LlamaForCausalLM) loaded into the trainer's
// parameter layout, and its logits for each golden prompt compared with the ones
// transformers computed. The trainer shares no forward code with the engine, so this checks
// its own implementation of RMSNorm, RoPE, GQA attention and SwiGLU.

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "runtime/model/safetensors_file.h"
#include "tests/support/fixtures.h"
#include "train/model/checkpoint_io.h"
#include "train/model/transformer.h"

namespace pagedserve::train {
namespace {

// tiny-llama's config.json, as the trainer's shape.
model_shape tiny_llama_shape() {
  model_shape s;
  s.vocab_size = 512;
  s.hidden_size = 128;
  s.intermediate_size = 344;
  s.num_layers = 3;
  s.num_heads = 4;
  s.num_kv_heads = 2;
  s.head_dim = 32;
  s.max_position_embeddings = 2048;
  s.rope_theta = 10000.0;
  s.rms_norm_eps = 1e-5;
  s.tie_word_embeddings = false;
  return s;
}

std::vector<float> f32_tensor(const safetensors_file& file, const std::string& name) {
  const safetensors_entry* e = file.find(name);
  if (e == nullptr) return {};
  std::vector<float> out(e->bytes.size() / sizeof(float));
  std::memcpy(out.data(), e->bytes.data(), e->bytes.size());
  return out;
}

std::vector<std::int32_t> i64_tokens(const safetensors_file& file, const std::string& name) {
  const safetensors_entry* e = file.find(name);
  if (e == nullptr) return {};
  std::vector<std::int64_t> wide(e->bytes.size() / sizeof(std::int64_t));
  std::memcpy(wide.data(), e->bytes.data(), e->bytes.size());
  return {wide.begin(), wide.end()};
}

TEST(TransformerGolden, LogitsEqualTransformersOnTinyLlama) {
  const auto dir = pagedserve::testing::goldens_dir() / "models" / "tiny-llama";
  const model_shape shape = tiny_llama_shape();
  const parameter_layout layout(shape);
  std::vector<float> params;
  const status read = read_safetensors(dir / "model.safetensors", layout, "", params);
  ASSERT_TRUE(read.ok()) << read.err().message;
  auto golden = safetensors_file::open(dir / "golden.safetensors");
  ASSERT_TRUE(golden.ok()) << golden.err().message;
  for (int p = 0; p < 4; ++p) {
    const std::string prefix = "prompt" + std::to_string(p);
    const std::vector<std::int32_t> ids = i64_tokens(*golden, prefix + ".ids");
    const std::vector<float> expected = f32_tensor(*golden, prefix + ".logits");
    ASSERT_FALSE(ids.empty());
    ASSERT_EQ(expected.size(), ids.size() * 512);
    transformer model(layout, 1, static_cast<std::int64_t>(ids.size()));
    model.forward(params, ids.data());
    const std::vector<float>& logits = model.acts().logits;
    double worst = 0.0;
    for (std::size_t i = 0; i < expected.size(); ++i) {
      worst = std::max(worst, static_cast<double>(std::abs(logits[i] - expected[i])));
    }
    // fp32 through three layers: the engine's own golden tests allow the same order.
    EXPECT_LT(worst, 1e-4) << prefix << " (" << ids.size() << " tokens)";
    std::printf("%s: %zu tokens, max |logit - transformers'| = %.2e\n", prefix.c_str(), ids.size(),
                worst);
  }
}

}  // namespace
}  // namespace pagedserve::train
