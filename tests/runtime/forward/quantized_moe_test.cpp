// Quantized MoE folders against their dequantized twins: `pagedserve quantize` (the library
// behind it) writes each format from a MoE golden, every expert, shared expert and attention
// projection quantized, routers left dense, together with the fp32 folder of its exact
// dequantization. The quantized folder, loaded as the hub's are (load_quant_spec), must give
// the twin's logits within fp32 rounding and its greedy tokens exactly, with its experts kept
// as codes by the CPU's fused_moe. And it must differ from the original weights.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "kernels/cpu/cpu_backend.h"
#include "quantize/quantize_folder.h"
#include "runtime/forward/model_forward.h"
#include "runtime/model/checkpoint.h"
#include "runtime/quant/quant_spec.h"
#include "runtime/quant/quantized_checkpoint.h"
#include "tests/runtime/forward/golden_model.h"
#include "tests/runtime/forward/schedule_runner.h"
#include "tests/support/temp_dir.h"

namespace pagedserve::forward::testing {
namespace {

namespace fs = std::filesystem;

struct loaded {
  model_config config;
  std::unique_ptr<kernels::backend> backend = kernels::make_cpu_backend();
  std::unique_ptr<model_forward> forward;
};

std::unique_ptr<loaded> load_folder(const fs::path& dir) {
  auto out = std::make_unique<loaded>();
  auto config = load_model_config(dir);
  EXPECT_TRUE(config.ok()) << (config.ok() ? "" : config.err().message);
  if (!config.ok()) return nullptr;
  out->config = *config;
  auto spec = quant::load_quant_spec(dir);
  EXPECT_TRUE(spec.ok()) << (spec.ok() ? "" : spec.err().message);
  auto weights = *spec ? quant::load_quantized_checkpoint(dir, out->config, **spec)
                       : load_safetensors_checkpoint(dir, out->config);
  EXPECT_TRUE(weights.ok()) << (weights.ok() ? "" : weights.err().message);
  if (!weights.ok()) return nullptr;
  auto uploaded = upload_model_weights(*out->backend, out->config, *weights);
  EXPECT_TRUE(uploaded.ok()) << (uploaded.ok() ? "" : uploaded.err().message);
  if (!uploaded.ok()) return nullptr;
  if (*spec) {
    // Every linear but the routers is quantized, and the CPU keeps all of them as codes.
    EXPECT_GT(uploaded->quantized_layers.kept, 0);
    EXPECT_EQ(uploaded->quantized_layers.dequantized, 0);
  }
  out->forward = std::make_unique<model_forward>(*out->backend, out->config, std::move(*uploaded));
  return out;
}

std::vector<sequence_record> run_golden_prompts(model_forward& fwd, const std::string& golden) {
  const golden_model reference = golden_model::load(golden);
  std::vector<scheduled_sequence> seqs;
  for (const golden_prompt& p : reference.prompts) seqs.push_back({p.ids, 13, 0, 12});
  return run_schedule(fwd, seqs, 16);
}

float max_abs_diff(const std::vector<float>& a, const std::vector<float>& b) {
  EXPECT_EQ(a.size(), b.size());
  float worst = 0.0F;
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    worst = std::max(worst, std::abs(a[i] - b[i]));
  }
  return worst;
}

struct moe_case {
  std::string name;
  std::string golden;
  quantize::quantize_options options;
};

void PrintTo(const moe_case& c, std::ostream* out) { *out << c.name; }

class quantized_moe : public ::testing::TestWithParam<moe_case> {};

TEST_P(quantized_moe, MatchesItsDequantizedTwinAndDiffersFromTheOriginal) {
  const moe_case& c = GetParam();
  const pagedserve::testing::temp_dir dir("pagedserve-quantized-moe");
  const fs::path source = pagedserve::testing::goldens_dir() / "models" / c.golden;
  quantize::quantize_options options = c.options;
  options.dequantized_out = dir.path() / "twin";
  auto summary = quantize::quantize_folder(source, dir.path() / "quantized", options);
  ASSERT_TRUE(summary.ok()) << summary.err().message;

  auto quantized = load_folder(dir.path() / "quantized");
  auto twin = load_folder(dir.path() / "twin");
  auto original = load_folder(source);
  ASSERT_TRUE(quantized && twin && original);
  const auto q = run_golden_prompts(*quantized->forward, c.golden);
  const auto t = run_golden_prompts(*twin->forward, c.golden);
  const auto o = run_golden_prompts(*original->forward, c.golden);
  float worst_change = 0.0F;
  for (std::size_t i = 0; i < q.size(); ++i) {
    EXPECT_LE(max_abs_diff(q[i].prompt_logits, t[i].prompt_logits), 1e-3F) << "prompt " << i;
    EXPECT_EQ(q[i].generated, t[i].generated) << "prompt " << i;
    EXPECT_LE(max_abs_diff(q[i].generated_logits, t[i].generated_logits), 1e-3F) << "prompt " << i;
    worst_change = std::max(worst_change, max_abs_diff(q[i].prompt_logits, o[i].prompt_logits));
  }
  EXPECT_GT(worst_change, 1e-3F);  // the weights did change
}

quantize::quantize_options options_of(quantize::quantize_method method, std::int64_t group_size,
                                      bool symmetric = true, bool desc_act = false, int bits = 4) {
  quantize::quantize_options o;
  o.method = method;
  o.group_size = group_size;
  o.symmetric = symmetric;
  o.desc_act = desc_act;
  o.bits = bits;
  return o;
}

using quantize::quantize_method;

INSTANTIATE_TEST_SUITE_P(
    moe, quantized_moe,
    ::testing::Values(
        moe_case{"qwen3_moe_awq_per_row", "tiny-qwen3-moe", options_of(quantize_method::awq, -1)},
        moe_case{"qwen3_moe_gptq_act_order", "tiny-qwen3-moe",
                 options_of(quantize_method::gptq, 16, false, true)},
        moe_case{"qwen3_moe_fp8_block", "tiny-qwen3-moe",
                 options_of(quantize_method::fp8_block, 0)},
        moe_case{"qwen2_moe_gptq_v2_int8", "tiny-qwen2-moe",
                 options_of(quantize_method::gptq_v2, 32, true, false, 8)},
        moe_case{"qwen2_moe_fp8_dynamic", "tiny-qwen2-moe",
                 options_of(quantize_method::fp8_dynamic, 0)},
        moe_case{"mixtral_awq", "tiny-mixtral", options_of(quantize_method::awq, 32)},
        moe_case{"mixtral_fp8_block", "tiny-mixtral", options_of(quantize_method::fp8_block, 0)}),
    [](const ::testing::TestParamInfo<moe_case>& param) { return param.param.name; });

}  // namespace
}  // namespace pagedserve::forward::testing
