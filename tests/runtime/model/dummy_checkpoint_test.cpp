#include <gtest/gtest.h>

#include <cmath>
#include <string_view>

#include "runtime/model/checkpoint.h"
#include "runtime/model/demo_model.h"
#include "runtime/model/dtype.h"
#include "runtime/model/weight_names.h"
#include "tests/runtime/model/model_test_support.h"

namespace pagedserve {
namespace {

using pagedserve::testing::golden_model_dir;

std::string_view view(const host_tensor& tensor) {
  return {reinterpret_cast<const char*>(tensor.bytes.data()), tensor.bytes.size()};
}

std::vector<float> values(const host_tensor& tensor) {
  std::vector<float> out(static_cast<std::size_t>(tensor.numel()));
  convert_to_f32(tensor, out);
  return out;
}

TEST(dummy_checkpoint, SameSeedSameBytes) {
  const checkpoint a = make_dummy_checkpoint(demo_model_config(), 0);
  const checkpoint b = make_dummy_checkpoint(demo_model_config(), 0);
  ASSERT_EQ(a.tensors().size(), b.tensors().size());
  for (const auto& [name, tensor] : a.tensors()) {
    EXPECT_EQ(view(tensor), view(*b.find(name))) << name;
  }
}

TEST(dummy_checkpoint, DifferentSeedDifferentBytes) {
  const checkpoint a = make_dummy_checkpoint(demo_model_config(), 0);
  const checkpoint b = make_dummy_checkpoint(demo_model_config(), 1);
  for (const tensor_spec& spec : expected_tensors(demo_model_config())) {
    if (spec.role == tensor_role::norm) continue;  // constant 1 by design
    EXPECT_NE(view(*a.find(spec.name)), view(*b.find(spec.name))) << spec.name;
  }
}

TEST(dummy_checkpoint, TensorsWithinOneCheckpointDiffer) {
  const checkpoint weights = make_dummy_checkpoint(demo_model_config(), 0);
  EXPECT_NE(view(*weights.find(layer_tensor_name(0, "mlp.gate_proj.weight"))),
            view(*weights.find(layer_tensor_name(0, "mlp.up_proj.weight"))));
}

TEST(dummy_checkpoint, EveryExpectedTensorWithItsShape) {
  for (const char* name : {"tiny-llama", "tiny-qwen2", "tiny-qwen3"}) {
    SCOPED_TRACE(name);
    const model_config config = *load_model_config(golden_model_dir(name));
    const checkpoint weights = make_dummy_checkpoint(config, 7);
    const std::vector<tensor_spec> specs = expected_tensors(config);
    EXPECT_EQ(weights.tensors().size(), specs.size());
    for (const tensor_spec& spec : specs) {
      const host_tensor* tensor = weights.find(spec.name);
      ASSERT_NE(tensor, nullptr) << spec.name;
      EXPECT_EQ(tensor->shape, spec.shape);
      EXPECT_EQ(tensor->dtype, weight_dtype::f32);
    }
  }
}

TEST(dummy_checkpoint, ValuesAreSmallFiniteAndCentred) {
  const model_config config = demo_model_config();
  const checkpoint weights = make_dummy_checkpoint(config, 3);
  for (const tensor_spec& spec : expected_tensors(config)) {
    SCOPED_TRACE(spec.name);
    const std::vector<float> v = values(*weights.find(spec.name));
    if (spec.role == tensor_role::norm) {
      for (float x : v) ASSERT_EQ(x, 1.0F);
      continue;
    }
    const double bound = 1.000001 / std::sqrt(static_cast<double>(spec.shape.back()));
    double sum = 0.0;
    for (float x : v) {
      ASSERT_TRUE(std::isfinite(x));
      ASSERT_LE(std::fabs(x), bound);
      sum += x;
    }
    EXPECT_LT(std::fabs(sum / static_cast<double>(v.size())), bound / 10);
  }
}

TEST(dummy_checkpoint, Bf16ConfigGivesBf16Weights) {
  const model_config config = *load_model_config(golden_model_dir("tiny-llama-bf16"));
  const checkpoint weights = make_dummy_checkpoint(config, 0);
  const host_tensor& tensor = *weights.find("model.layers.0.self_attn.q_proj.weight");
  EXPECT_EQ(tensor.dtype, weight_dtype::bf16);
  EXPECT_EQ(tensor.bytes.size(), static_cast<std::size_t>(tensor.numel()) * 2);
  // The bf16 bytes are the rounded fp32 values an fp32 config would get from the same seed.
  model_config f32_config = config;
  f32_config.dtype = weight_dtype::f32;
  const checkpoint f32_weights = make_dummy_checkpoint(f32_config, 0);
  const std::vector<float> wide = values(*f32_weights.find(tensor.name));
  const std::vector<float> narrow = values(tensor);
  for (std::size_t i = 0; i < wide.size(); ++i) {
    ASSERT_EQ(narrow[i], bf16_to_f32(f32_to_bf16(wide[i]))) << i;
  }
}

TEST(dummy_checkpoint, DemoModelHasTiedEmbeddings) {
  const checkpoint weights = make_dummy_checkpoint(demo_model_config(), 0);
  EXPECT_EQ(weights.find("lm_head.weight"), nullptr);
  EXPECT_NE(weights.find("model.embed_tokens.weight"), nullptr);
  EXPECT_EQ(weights.tensors().size(), expected_tensors(demo_model_config()).size());
}

}  // namespace
}  // namespace pagedserve
