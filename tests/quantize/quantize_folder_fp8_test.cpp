// The demo model written as FP8 folders: HF FineGrainedFP8 blocks and llm-compressor's
// compressed-tensors (FP8_DYNAMIC, weight-only).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "runtime/model/dtype.h"
#include "runtime/quant/quantized_linear.h"
#include "tests/quantize/quantize_test_support.h"

namespace pagedserve::quantize::testing {
namespace {

namespace json = boost::json;

TEST_F(quantize_folder_test, HfFp8BlockTensorsAndConfig) {
  quantize_options options;
  options.method = quantize_method::fp8_block;
  options.dequantized_out = twin();
  write(options);
  const safetensors_file file = open_model(out());
  for (std::int64_t i = 0; i < demo_layers; ++i) {
    for (const linear_shape& l : demo_linears) {
      const std::string m = module_name(i, l.module);
      expect_tensor(file, m + ".weight", "F8_E4M3", {l.out, l.in});
      expect_tensor(file, m + ".weight_scale_inv", "F32",
                    {(l.out + 127) / 128, (l.in + 127) / 128});
    }
  }
  expect_tensor(file, "model.embed_tokens.weight", "BF16", {4096, 256});
  json::object config = read_config(out());
  EXPECT_EQ(config["quantization_config"], json::parse(R"({"quant_method":"fp8",
      "activation_scheme":"dynamic","fmt":"e4m3","weight_block_size":[128,128]})"));

  // weight_scale_inv multiplies (trap 4): gate_proj[n = 300, k = 200] is in block (2, 1).
  const std::string m = module_name(1, "mlp.gate_proj");
  const auto code = element<std::uint8_t>(*file.find(m + ".weight"), 300 * 256 + 200);
  const float scale = element<float>(*file.find(m + ".weight_scale_inv"), 2 * 2 + 1);
  const safetensors_file dense = open_model(twin());
  EXPECT_EQ(element<float>(*dense.find(m + ".weight"), 300 * 256 + 200),
            quant::e4m3_to_f32(code) * scale);
}

TEST_F(quantize_folder_test, CompressedTensorsFp8DynamicChannel) {
  quantize_options options;
  options.method = quantize_method::fp8_dynamic;
  write(options);
  const safetensors_file file = open_model(out());
  for (const linear_shape& l : demo_linears) {
    const std::string m = module_name(0, l.module);
    expect_tensor(file, m + ".weight", "F8_E4M3", {l.out, l.in});
    // The scale has the dtype of the model's weights (bf16 here, whatever torch_dtype says).
    expect_tensor(file, m + ".weight_scale", "BF16", {l.out, 1});
    EXPECT_EQ(file.find(m + ".input_scale"), nullptr);  // dynamic activations
  }
  const json::object qc = read_config(out())["quantization_config"].as_object();
  EXPECT_EQ(qc.at("quant_method"), "compressed-tensors");
  EXPECT_EQ(qc.at("format"), "float-quantized");
  EXPECT_EQ(qc.at("quantization_status"), "compressed");
  EXPECT_EQ(qc.at("ignore"), json::array{"lm_head"});
  const json::object& group = qc.at("config_groups").at("group_0").as_object();
  EXPECT_EQ(group.at("targets"), json::array{"Linear"});
  EXPECT_EQ(group.at("weights"), json::parse(R"({"num_bits":8,"type":"float","symmetric":true,
      "group_size":null,"strategy":"channel","block_structure":null,"dynamic":false,
      "actorder":null,"observer":"minmax","observer_kwargs":{}})"));
  const json::object& activations = group.at("input_activations").as_object();
  EXPECT_EQ(activations.at("strategy"), "token");
  EXPECT_EQ(activations.at("dynamic"), true);
  EXPECT_EQ(activations.at("type"), "float");
  EXPECT_EQ(activations.at("num_bits"), 8);
}

TEST_F(quantize_folder_test, CompressedTensorsFp8WeightOnlyPerTensor) {
  quantize_options options;
  options.method = quantize_method::fp8_weight_only;
  options.weight_strategy = quant::fp8_strategy::tensor;
  options.dequantized_out = twin();
  write(options);
  const safetensors_file file = open_model(out());
  const std::string m = module_name(4, "self_attn.o_proj");
  const auto* scale = expect_tensor(file, m + ".weight_scale", "BF16", {1});
  expect_tensor(file, m + ".weight", "F8_E4M3", {256, 256});
  const json::object qc = read_config(out())["quantization_config"].as_object();
  EXPECT_EQ(qc.at("format"), "naive-quantized");
  const json::object& group = qc.at("config_groups").at("group_0").as_object();
  EXPECT_EQ(group.at("weights").at("strategy"), "tensor");
  EXPECT_TRUE(group.at("input_activations").is_null());

  // dq = q.to(scale.dtype) * scale: one bf16 scale for the whole tensor.
  ASSERT_NE(scale, nullptr);
  const float s = bf16_to_f32(element<std::uint16_t>(*scale, 0));
  const auto code = element<std::uint8_t>(*file.find(m + ".weight"), 777);
  EXPECT_EQ(element<float>(*open_model(twin()).find(m + ".weight"), 777),
            quant::e4m3_to_f32(code) * s);
}

// The demo ties lm_head to its embeddings: --lm-head unties it (llm-compressor's way), the
// output layer quantized, the embeddings copied as they were.
TEST_F(quantize_folder_test, LmHeadOfATiedModelIsUntiedAndQuantized) {
  quantize_options options;
  options.method = quantize_method::fp8_weight_only;
  options.lm_head = true;
  options.dequantized_out = twin();
  auto summary = quantize_folder(demo_model_dir(), out(), options);
  ASSERT_TRUE(summary.ok()) << summary.err().message;
  EXPECT_EQ(summary->num_quantized, demo_layers * 7 + 1);
  const safetensors_file file = open_model(out());
  expect_tensor(file, "lm_head.weight", "F8_E4M3", {4096, 256});
  const auto* scale = expect_tensor(file, "lm_head.weight_scale", "BF16", {4096, 1});
  const safetensors_file source = open_model(demo_model_dir());
  const safetensors_entry* embeddings = source.find("model.embed_tokens.weight");
  const auto* copied = expect_tensor(file, "model.embed_tokens.weight", "BF16", {4096, 256});
  ASSERT_NE(copied, nullptr);
  ASSERT_EQ(copied->bytes.size(), embeddings->bytes.size());
  EXPECT_EQ(std::memcmp(copied->bytes.data(), embeddings->bytes.data(), copied->bytes.size()), 0);
  for (const fs::path& dir : {out(), twin()}) {
    EXPECT_EQ(read_config(dir).at("tie_word_embeddings"), false) << dir;
  }
  EXPECT_EQ(read_config(out())["quantization_config"].at("ignore"), json::array{});

  // The twin's output layer is the embeddings in e4m3 with a bf16 scale per row (rounding:
  // half of e4m3's 3-bit mantissa step, relative, or half its smallest subnormal step).
  ASSERT_NE(scale, nullptr);
  const safetensors_file twin_file = open_model(twin());
  const safetensors_entry& twin_head = *twin_file.find("lm_head.weight");
  for (const std::size_t i : {std::size_t{0}, std::size_t{777}, std::size_t{4096 * 256 - 1}}) {
    const float e = bf16_to_f32(element<std::uint16_t>(*embeddings, i));
    const float s = bf16_to_f32(element<std::uint16_t>(*scale, i / 256));
    const float dq = element<float>(twin_head, i);
    EXPECT_LE(std::fabs(dq - e), std::fabs(e) / 16.0F + s / 1024.0F + 1e-7F) << i;
    EXPECT_EQ(dq, quant::e4m3_to_f32(element<std::uint8_t>(*file.find("lm_head.weight"), i)) * s);
  }
}

}  // namespace
}  // namespace pagedserve::quantize::testing
