// The demo model written as AWQ and GPTQ folders: tensor names, dtypes, shapes and
// config.json as the producers write them; the dequantized twin; refusals.
#include <gtest/gtest.h>

#include <map>

#include "runtime/model/checkpoint.h"
#include "runtime/model/dtype.h"
#include "tests/quantize/quantize_test_support.h"

namespace pagedserve::quantize::testing {
namespace {

namespace json = boost::json;

// Tensors every format copies unchanged: the embedding and the norms (tied lm_head).
void expect_unquantized_tensors_copied(const fs::path& dir) {
  const safetensors_file source = open_model(demo_model_dir());
  const safetensors_file written = open_model(dir);
  std::size_t num_copied = 0;
  for (const auto& [name, entry] : source.entries()) {
    if (name.find("_proj.") != std::string::npos) continue;
    const safetensors_entry* copy = written.find(name);
    ASSERT_NE(copy, nullptr) << name;
    EXPECT_EQ(copy->dtype, entry.dtype) << name;
    EXPECT_EQ(copy->shape, entry.shape) << name;
    ASSERT_EQ(copy->bytes.size(), entry.bytes.size());
    EXPECT_EQ(std::memcmp(copy->bytes.data(), entry.bytes.data(), entry.bytes.size()), 0) << name;
    ++num_copied;
  }
  EXPECT_EQ(num_copied, 1U + 2U * demo_layers + 1U);  // embed_tokens, 2 norms a layer, norm
  EXPECT_EQ(written.find("lm_head.weight"), nullptr);
  for (const char* file : {"tokenizer.json", "tokenizer_config.json", "generation_config.json"}) {
    EXPECT_TRUE(fs::exists(dir / file)) << file;
  }
}

// The source config.json, field for field, plus the quantization_config.
void expect_config(const fs::path& dir, const json::object& quantization_config) {
  json::object expected = read_config(demo_model_dir());
  expected["quantization_config"] = quantization_config;
  EXPECT_EQ(read_config(dir), expected) << json::serialize(read_config(dir));
}

TEST_F(quantize_folder_test, AwqGemmTensorsAndConfig) {
  quantize_options options;
  options.method = quantize_method::awq;
  options.group_size = 64;  // 704 is not a multiple of 128
  const quantize_summary summary = write(options);
  EXPECT_EQ(summary.num_layers, demo_layers);
  EXPECT_EQ(summary.num_quantized, 7 * demo_layers);
  EXPECT_LT(summary.bytes_after, summary.bytes_before);

  const safetensors_file file = open_model(out());
  EXPECT_EQ(file.entries().size(), 1U + demo_layers * (2 + 7 * 3) + 1U);
  for (std::int64_t i = 0; i < demo_layers; ++i) {
    for (const linear_shape& l : demo_linears) {
      const std::string m = module_name(i, l.module);
      expect_tensor(file, m + ".qweight", "I32", {l.in, l.out / 8});
      expect_tensor(file, m + ".qzeros", "I32", {l.in / 64, l.out / 8});
      expect_tensor(file, m + ".scales", "F16", {l.in / 64, l.out});
      EXPECT_EQ(file.find(m + ".weight"), nullptr);
    }
  }
  expect_unquantized_tensors_copied(out());
  expect_config(out(), json::parse(R"({"quant_method":"awq","zero_point":true,"group_size":64,
      "bits":4,"version":"gemm","modules_to_not_convert":null})")
                           .as_object());
}

TEST_F(quantize_folder_test, AwqRefusesAGroupThatDoesNotDivideTheInputs) {
  quantize_options options;  // awq, group 128: down_proj has 704 inputs
  const auto refused = quantize_folder(demo_model_dir(), out(), options);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.err().code, error_code::unsupported);
  EXPECT_NE(refused.err().message.find("mlp.down_proj"), std::string::npos);
  EXPECT_NE(refused.err().message.find("704"), std::string::npos);
  EXPECT_FALSE(fs::exists(out() / "model.safetensors"));
}

TEST_F(quantize_folder_test, GptqV1SymmetricActOrder) {
  quantize_options options;
  options.method = quantize_method::gptq;
  options.desc_act = true;
  options.dequantized_out = twin();
  write(options);
  const safetensors_file file = open_model(out());
  for (std::int64_t i = 0; i < demo_layers; ++i) {
    std::map<std::string, std::vector<std::byte>> g_idx_of;
    for (const linear_shape& l : demo_linears) {
      const std::string m = module_name(i, l.module);
      const std::int64_t groups = (l.in + 127) / 128;
      expect_tensor(file, m + ".qweight", "I32", {l.in / 8, l.out});
      const auto* qzeros = expect_tensor(file, m + ".qzeros", "I32", {groups, l.out / 8});
      expect_tensor(file, m + ".scales", "F16", {groups, l.out});
      const auto* g_idx = expect_tensor(file, m + ".g_idx", "I32", {l.in});
      ASSERT_TRUE(qzeros != nullptr && g_idx != nullptr);
      for (std::int64_t w = 0; w < groups * l.out / 8; ++w) {
        ASSERT_EQ(element<std::uint32_t>(*qzeros, w), 0x77777777U) << m;  // z = 8, stored 7
      }
      std::vector<std::int64_t> group_sizes(static_cast<std::size_t>(groups), 0);
      for (std::int64_t k = 0; k < l.in; ++k) ++group_sizes.at(element<std::uint32_t>(*g_idx, k));
      EXPECT_EQ(group_sizes.front(), 128) << m;
      g_idx_of[l.module].assign(g_idx->bytes.begin(), g_idx->bytes.end());
    }
    // Modules reading one input share one order (as loaders fusing qkv / gate_up need).
    EXPECT_EQ(g_idx_of["self_attn.q_proj"], g_idx_of["self_attn.k_proj"]);
    EXPECT_EQ(g_idx_of["self_attn.q_proj"], g_idx_of["self_attn.v_proj"]);
    EXPECT_EQ(g_idx_of["mlp.gate_proj"], g_idx_of["mlp.up_proj"]);
    EXPECT_NE(g_idx_of["self_attn.q_proj"], g_idx_of["self_attn.o_proj"]);
  }
  expect_unquantized_tensors_copied(out());
  expect_config(out(), json::parse(R"({"quant_method":"gptq","bits":4,"group_size":128,
      "desc_act":true,"sym":true,"checkpoint_format":"gptq","lm_head":false,"damp_percent":0.01,
      "static_groups":false,"true_sequential":true})")
                           .as_object());

  // One weight of the twin from the packed tensors by QUANTIZATION.md §2 (v1: zero + 1):
  // w[k, n] = s[g_idx[k], n] * (q[k, n] - (qz[g_idx[k], n] + 1)) at k = 5, n = 3.
  const std::string m = module_name(2, "mlp.down_proj");
  const std::uint32_t g = element<std::uint32_t>(*file.find(m + ".g_idx"), 5);
  const std::uint32_t q =
      (element<std::uint32_t>(*file.find(m + ".qweight"), 0 * 256 + 3) >> 20) & 0xF;
  const std::uint32_t qz =
      (element<std::uint32_t>(*file.find(m + ".qzeros"), g * 32 + 0) >> 12) & 0xF;
  const float s = f16_to_f32(element<std::uint16_t>(*file.find(m + ".scales"), g * 256 + 3));
  const safetensors_file twin_file = open_model(twin());
  EXPECT_EQ(element<float>(*twin_file.find(m + ".weight"), 3 * 704 + 5),
            static_cast<float>(static_cast<int>(q) - static_cast<int>(qz + 1)) * s);
}

TEST_F(quantize_folder_test, GptqV2AsymmetricEightBits) {
  quantize_options options;
  options.method = quantize_method::gptq_v2;
  options.bits = 8;
  options.symmetric = false;
  write(options);
  const safetensors_file file = open_model(out());
  for (const linear_shape& l : demo_linears) {
    const std::string m = module_name(5, l.module);
    const std::int64_t groups = (l.in + 127) / 128;
    expect_tensor(file, m + ".qweight", "I32", {l.in / 4, l.out});
    expect_tensor(file, m + ".qzeros", "I32", {groups, l.out / 4});
    expect_tensor(file, m + ".scales", "F16", {groups, l.out});
    const auto* g_idx = expect_tensor(file, m + ".g_idx", "I32", {l.in});
    ASSERT_NE(g_idx, nullptr);
    for (std::int64_t k = 0; k < l.in; ++k) ASSERT_EQ(element<std::int32_t>(*g_idx, k), k / 128);
  }
  expect_config(out(), json::parse(R"({"quant_method":"gptq","bits":8,"group_size":128,
      "desc_act":false,"sym":false,"checkpoint_format":"gptq_v2","lm_head":false,
      "damp_percent":0.01,"static_groups":false,"true_sequential":true})")
                           .as_object());
}

TEST_F(quantize_folder_test, DequantizedTwinIsADenseFp32Folder) {
  quantize_options options;
  options.method = quantize_method::awq;
  options.group_size = 64;
  options.dequantized_out = twin();
  const quantize_summary summary = write(options);
  const safetensors_file source = open_model(demo_model_dir());
  const safetensors_file dense = open_model(twin());
  EXPECT_EQ(summary.bytes_dequantized, 2 * summary.bytes_before);  // bf16 -> f32
  ASSERT_EQ(dense.entries().size(), source.entries().size());
  for (const auto& [name, entry] : source.entries()) {
    expect_tensor(dense, name, "F32", entry.shape);
  }
  EXPECT_EQ(read_config(twin()), read_config(demo_model_dir()));
  const auto& embed = *dense.find("model.embed_tokens.weight");
  EXPECT_EQ(element<float>(embed, 12345),
            bf16_to_f32(element<std::uint16_t>(*source.find("model.embed_tokens.weight"), 12345)));

  // q_proj[n = 1, k = 0] from the AWQ tensors: column 1 is nibble 4 of word 0.
  const std::string m = module_name(0, "self_attn.q_proj");
  const safetensors_file file = open_model(out());
  const std::uint32_t q = (element<std::uint32_t>(*file.find(m + ".qweight"), 0) >> 16) & 0xF;
  const std::uint32_t z = (element<std::uint32_t>(*file.find(m + ".qzeros"), 0) >> 16) & 0xF;
  const float s = f16_to_f32(element<std::uint16_t>(*file.find(m + ".scales"), 1));
  EXPECT_EQ(element<float>(*dense.find(m + ".weight"), 256 + 0),
            static_cast<float>(static_cast<int>(q) - static_cast<int>(z)) * s);

  // The engine loads the twin as any dense checkpoint.
  auto config = load_model_config(twin());
  ASSERT_TRUE(config.ok()) << config.err().message;
  EXPECT_TRUE(load_safetensors_checkpoint(twin(), *config).ok());
}

TEST_F(quantize_folder_test, RefusesBadRequests) {
  quantize_options options;
  options.method = quantize_method::gptq;
  auto same = quantize_folder(demo_model_dir(), demo_model_dir(), options);
  ASSERT_FALSE(same.ok());
  EXPECT_EQ(same.err().code, error_code::invalid_argument);

  quantize_options awq;  // a group AWQ loaders refuse is never written
  awq.method = quantize_method::awq;
  awq.group_size = 16;
  auto awq_group = quantize_folder(demo_model_dir(), out(), awq);
  ASSERT_FALSE(awq_group.ok());
  EXPECT_NE(awq_group.err().message.find("-1, 32, 64 or 128"), std::string::npos);

  options.bits = 3;
  EXPECT_EQ(quantize_folder(demo_model_dir(), out(), options).err().code,
            error_code::invalid_argument);
  EXPECT_EQ(quantize_folder(root_ / "missing", out(), quantize_options{}).err().code,
            error_code::not_found);
  EXPECT_FALSE(fs::exists(out()));
}

}  // namespace
}  // namespace pagedserve::quantize::testing
