// A tiny fp32 Llama with an untied lm_head, written by the tests: GPTQ and compressed-tensors
// --lm-head quantize it, every other method copies it, and a compressed-tensors scale follows the
// fp32 weights.
#include <gtest/gtest.h>

#include <cmath>

#include "quantize/safetensors_writer.h"
#include "runtime/model/weight_names.h"
#include "tests/quantize/quantize_test_support.h"

namespace pagedserve::quantize::testing {
namespace {

constexpr const char* tiny_config =
    R"({"architectures":["LlamaForCausalLM"],"model_type":"llama","vocab_size":64,)"
    R"("hidden_size":32,"intermediate_size":64,"num_hidden_layers":1,"num_attention_heads":2,)"
    R"("num_key_value_heads":1,"head_dim":16,"max_position_embeddings":64,"rms_norm_eps":1e-5,)"
    R"("rope_theta":10000.0,"tie_word_embeddings":false,"torch_dtype":"float32"})";

class untied_model : public quantize_folder_test {
 protected:
  void SetUp() override {
    quantize_folder_test::SetUp();
    fs::create_directories(source());
    std::ofstream(source() / "config.json") << tiny_config;
    auto config = load_model_config(source());
    ASSERT_TRUE(config.ok()) << config.err().message;
    std::vector<safetensors_tensor> tensors;
    for (const tensor_spec& spec : expected_tensors(*config)) {
      std::vector<float> values(
          static_cast<std::size_t>(spec.shape[0]) *
          static_cast<std::size_t>(spec.shape.size() > 1 ? spec.shape[1] : 1));
      for (std::size_t i = 0; i < values.size(); ++i) {
        values[i] = 0.1F * std::sin(0.37F * static_cast<float>(i + spec.name.size()));
      }
      tensors.push_back(float_tensor(spec.name, weight_dtype::f32, spec.shape, values));
    }
    ASSERT_TRUE(write_safetensors(source() / "model.safetensors", tensors).ok());
  }

  fs::path source() const { return root_ / "tiny"; }
};

TEST_F(untied_model, GptqWithLmHeadQuantizesIt) {
  quantize_options options;
  options.method = quantize_method::gptq;
  options.group_size = 32;
  options.lm_head = true;
  auto summary = quantize_folder(source(), out(), options);
  ASSERT_TRUE(summary.ok()) << summary.err().message;
  EXPECT_EQ(summary->num_quantized, 8);  // 7 linears and lm_head
  const safetensors_file file = open_model(out());
  expect_tensor(file, "lm_head.qweight", "I32", {32 / 8, 64});
  expect_tensor(file, "lm_head.qzeros", "I32", {1, 64 / 8});
  expect_tensor(file, "lm_head.scales", "F16", {1, 64});
  expect_tensor(file, "lm_head.g_idx", "I32", {32});
  EXPECT_EQ(file.find("lm_head.weight"), nullptr);
  expect_tensor(file, "model.embed_tokens.weight", "F32", {64, 32});
  EXPECT_EQ(read_config(out())["quantization_config"].at("lm_head"), true);
}

TEST_F(untied_model, OtherwiseTheLmHeadIsCopied) {
  quantize_options options;
  options.method = quantize_method::fp8_dynamic;
  auto summary = quantize_folder(source(), out(), options);
  ASSERT_TRUE(summary.ok()) << summary.err().message;
  EXPECT_EQ(summary->num_quantized, 7);
  const safetensors_file file = open_model(out());
  expect_tensor(file, "lm_head.weight", "F32", {64, 32});
  // The scale has the weights' dtype: fp32 here.
  expect_tensor(file, "model.layers.0.mlp.down_proj.weight_scale", "F32", {32, 1});
}

// llm-compressor quantizes the lm_head too unless `ignore` names it: --lm-head leaves it out
// of `ignore`, and the loader then expects it in fp8.
TEST_F(untied_model, CompressedTensorsWithLmHeadQuantizesItAndIgnoresNothing) {
  quantize_options options;
  options.method = quantize_method::fp8_dynamic;
  options.lm_head = true;
  auto summary = quantize_folder(source(), out(), options);
  ASSERT_TRUE(summary.ok()) << summary.err().message;
  EXPECT_EQ(summary->num_quantized, 8);
  const safetensors_file file = open_model(out());
  expect_tensor(file, "lm_head.weight", "F8_E4M3", {64, 32});
  expect_tensor(file, "lm_head.weight_scale", "F32", {64, 1});
  EXPECT_EQ(read_config(out())["quantization_config"].at("ignore"), boost::json::array{});
}

}  // namespace
}  // namespace pagedserve::quantize::testing
