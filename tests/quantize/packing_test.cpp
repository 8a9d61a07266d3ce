// Packed words against the layouts of docs/design/QUANTIZATION.md, worked out by hand.
// Layers are built code by code (not by RTN) so each test sees only the packing.
#include "quantize/packing.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <utility>
#include <vector>

namespace pagedserve::quantize {
namespace {

using kernels::weight_format;
using quant::quantized_linear;

// An int layer of one group size with every code, zero and scale set by the caller.
quantized_linear int_layer(int bits, std::int64_t out, std::int64_t in, std::int64_t group_size) {
  quantized_linear layer;
  layer.format = bits == 4 ? weight_format::int4 : weight_format::int8;
  layer.out_features = out;
  layer.in_features = in;
  layer.group_size = group_size;
  const std::int64_t row_bytes = bits == 4 ? (in + 1) / 2 : in;
  layer.codes.assign(static_cast<std::size_t>(out * row_bytes), 0);
  layer.scales.assign(static_cast<std::size_t>(out * layer.num_groups()), 1.0F);
  layer.zeros.assign(layer.scales.size(), static_cast<std::uint8_t>(bits == 4 ? 8 : 128));
  return layer;
}

// Code position k of row n (int4: two a byte, the even one low).
void set_code(quantized_linear& layer, std::int64_t n, std::int64_t k, std::uint8_t q) {
  if (layer.format == weight_format::int8) {
    layer.codes[static_cast<std::size_t>(n * layer.in_features + k)] = q;
    return;
  }
  auto& byte = layer.codes[static_cast<std::size_t>(n * ((layer.in_features + 1) / 2) + k / 2)];
  byte = k % 2 == 0 ? static_cast<std::uint8_t>((byte & 0xF0U) | q)
                    : static_cast<std::uint8_t>((byte & 0x0FU) | (q << 4));
}

const safetensors_tensor& find(const packed_tensors& tensors, const std::string& name) {
  for (const safetensors_tensor& t : tensors) {
    if (t.name == name) return t;
  }
  throw std::runtime_error("no tensor " + name);
}

std::uint32_t word(const safetensors_tensor& t, std::size_t i) {
  std::uint32_t w = 0;
  std::memcpy(&w, t.bytes.data() + 4 * i, 4);
  return w;
}

std::uint16_t half(const safetensors_tensor& t, std::size_t i) {
  std::uint16_t h = 0;
  std::memcpy(&h, t.bytes.data() + 2 * i, 2);
  return h;
}

TEST(pack_awq, OutputColumnsInterleaved02461357) {
  // One input, eight columns. Column n has code n and zero 15 - n. Nibble i holds column
  // {0,2,4,6,1,3,5,7}[i]: codes 0,2,4,6,1,3,5,7 from the low nibble -> 0x75316420; zeros
  // 15,13,11,9,14,12,10,8 -> 0x8ACE9BDF.
  quantized_linear layer = int_layer(4, 8, 1, 1);
  for (std::int64_t n = 0; n < 8; ++n) {
    set_code(layer, n, 0, static_cast<std::uint8_t>(n));
    layer.zeros[static_cast<std::size_t>(n)] = static_cast<std::uint8_t>(15 - n);
    layer.scales[static_cast<std::size_t>(n)] = static_cast<float>(n + 1);
  }
  const auto tensors = pack_awq("m", layer);
  ASSERT_TRUE(tensors.ok()) << tensors.err().message;
  const safetensors_tensor& qweight = find(*tensors, "m.qweight");
  EXPECT_EQ(qweight.dtype, "I32");
  EXPECT_EQ(qweight.shape, (std::vector<std::int64_t>{1, 1}));  // [in, out / 8]
  EXPECT_EQ(word(qweight, 0), 0x75316420U);
  EXPECT_EQ(word(find(*tensors, "m.qzeros"), 0), 0x8ACE9BDFU);
  const safetensors_tensor& scales = find(*tensors, "m.scales");
  EXPECT_EQ(scales.dtype, "F16");
  EXPECT_EQ(scales.shape, (std::vector<std::int64_t>{1, 8}));  // [in / g, out], not interleaved
  EXPECT_EQ(half(scales, 0), 0x3C00);                          // 1.0
  EXPECT_EQ(half(scales, 1), 0x4000);                          // 2.0
  EXPECT_EQ(half(scales, 7), 0x4800);                          // 8.0
}

TEST(pack_awq, InputRowsAndGroupsAreRowsOfTheTensors) {
  // 16 columns, 4 inputs in groups of 2: qweight [4, 2], qzeros and scales [2, ...].
  quantized_linear layer = int_layer(4, 16, 4, 2);
  set_code(layer, 9, 3, 0xA);  // column 9 = word 1, position 1 -> nibble 4
  layer.zeros[9 * 2 + 1] = 3;  // column 9, group 1
  const auto tensors = pack_awq("m", layer);
  ASSERT_TRUE(tensors.ok());
  EXPECT_EQ(find(*tensors, "m.qweight").shape, (std::vector<std::int64_t>{4, 2}));
  EXPECT_EQ(word(find(*tensors, "m.qweight"), 3 * 2 + 1), 0x000A0000U);
  EXPECT_EQ(word(find(*tensors, "m.qzeros"), 1 * 2 + 1), 0x88838888U);
  EXPECT_EQ(find(*tensors, "m.scales").shape, (std::vector<std::int64_t>{2, 16}));
}

TEST(pack_awq, RefusesWhatTheGemmLayoutCannotHold) {
  EXPECT_FALSE(pack_awq("m", int_layer(4, 4, 8, 8)).ok());   // out % 8
  EXPECT_FALSE(pack_awq("m", int_layer(4, 8, 12, 8)).ok());  // in % g
  EXPECT_FALSE(pack_awq("m", int_layer(8, 8, 8, 8)).ok());   // 8 bits
  quantized_linear ordered = int_layer(4, 8, 8, 8);
  ordered.input_order = {7, 6, 5, 4, 3, 2, 1, 0};
  const auto refused = pack_awq("model.layers.0.mlp.up_proj", ordered);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.err().message.find("model.layers.0.mlp.up_proj"), std::string::npos);
}

TEST(pack_gptq, InputRowsPackedInOrder) {
  // Inputs 0..7 of column 0 have codes 1..8: nibble j holds input j -> 0x87654321.
  quantized_linear layer = int_layer(4, 8, 8, 8);
  for (std::int64_t k = 0; k < 8; ++k) set_code(layer, 0, k, static_cast<std::uint8_t>(k + 1));
  const auto tensors = pack_gptq("m", layer, gptq_version::v1);
  ASSERT_TRUE(tensors.ok()) << tensors.err().message;
  const safetensors_tensor& qweight = find(*tensors, "m.qweight");
  EXPECT_EQ(qweight.shape, (std::vector<std::int64_t>{1, 8}));  // [in / 8, out]
  EXPECT_EQ(word(qweight, 0), 0x87654321U);
  EXPECT_EQ(word(qweight, 1), 0U);
  const safetensors_tensor& g_idx = find(*tensors, "m.g_idx");
  EXPECT_EQ(g_idx.dtype, "I32");
  EXPECT_EQ(g_idx.shape, (std::vector<std::int64_t>{8}));
  for (std::size_t k = 0; k < 8; ++k) EXPECT_EQ(word(g_idx, k), 0U);
}

TEST(pack_gptq, SymmetricZerosAre7InV1And8InV2) {
  const quantized_linear layer = int_layer(4, 16, 8, 4);  // zeros 8 everywhere
  const auto v1 = pack_gptq("m", layer, gptq_version::v1);
  const auto v2 = pack_gptq("m", layer, gptq_version::v2);
  ASSERT_TRUE(v1.ok() && v2.ok());
  const safetensors_tensor& qzeros = find(*v1, "m.qzeros");
  EXPECT_EQ(qzeros.shape, (std::vector<std::int64_t>{2, 2}));  // [groups, out / 8]
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(word(qzeros, i), 0x77777777U);
    EXPECT_EQ(word(find(*v2, "m.qzeros"), i), 0x88888888U);
  }
  EXPECT_EQ(find(*v1, "m.scales").shape, (std::vector<std::int64_t>{2, 16}));
}

TEST(pack_gptq, ZerosPackTheOutputDimInOrder) {
  quantized_linear layer = int_layer(4, 8, 8, 8);
  for (std::int64_t n = 0; n < 8; ++n)
    layer.zeros[static_cast<std::size_t>(n)] = static_cast<std::uint8_t>(n + 1);
  const auto v2 = pack_gptq("m", layer, gptq_version::v2);
  const auto v1 = pack_gptq("m", layer, gptq_version::v1);
  ASSERT_TRUE(v1.ok() && v2.ok());
  EXPECT_EQ(word(find(*v2, "m.qzeros"), 0), 0x87654321U);
  EXPECT_EQ(word(find(*v1, "m.qzeros"), 0), 0x76543210U);
}

TEST(pack_gptq, ActOrderKeepsOriginalRowsAndWritesGIdx) {
  // Codes in input_order's order: position j is original input 7 - j, with code j + 1. So
  // original input k has code 8 - k (qweight 0x12345678) and group (7 - k) / 4.
  quantized_linear layer = int_layer(4, 8, 8, 4);
  layer.input_order = {7, 6, 5, 4, 3, 2, 1, 0};
  for (std::int64_t j = 0; j < 8; ++j) set_code(layer, 0, j, static_cast<std::uint8_t>(j + 1));
  const auto tensors = pack_gptq("m", layer, gptq_version::v2);
  ASSERT_TRUE(tensors.ok());
  EXPECT_EQ(word(find(*tensors, "m.qweight"), 0), 0x12345678U);
  const std::vector<std::uint32_t> expected = {1, 1, 1, 1, 0, 0, 0, 0};
  for (std::size_t k = 0; k < 8; ++k) EXPECT_EQ(word(find(*tensors, "m.g_idx"), k), expected[k]);
}

TEST(pack_gptq, EightBitsPackFourBytesAWord) {
  quantized_linear layer = int_layer(8, 4, 4, 4);  // zeros 128
  for (std::int64_t k = 0; k < 4; ++k) set_code(layer, 0, k, static_cast<std::uint8_t>(k + 1));
  const auto v1 = pack_gptq("m", layer, gptq_version::v1);
  const auto v2 = pack_gptq("m", layer, gptq_version::v2);
  ASSERT_TRUE(v1.ok() && v2.ok());
  EXPECT_EQ(find(*v1, "m.qweight").shape, (std::vector<std::int64_t>{1, 4}));
  EXPECT_EQ(word(find(*v1, "m.qweight"), 0), 0x04030201U);
  EXPECT_EQ(find(*v1, "m.qzeros").shape, (std::vector<std::int64_t>{1, 1}));
  EXPECT_EQ(word(find(*v1, "m.qzeros"), 0), 0x7F7F7F7FU);
  EXPECT_EQ(word(find(*v2, "m.qzeros"), 0), 0x80808080U);
}

TEST(pack_gptq, V1RefusesAZeroPointOfZero) {
  quantized_linear layer = int_layer(4, 8, 8, 8);
  layer.zeros[3] = 0;
  EXPECT_FALSE(pack_gptq("m", layer, gptq_version::v1).ok());
  EXPECT_TRUE(pack_gptq("m", layer, gptq_version::v2).ok());
  EXPECT_FALSE(pack_gptq("m", int_layer(4, 4, 8, 8), gptq_version::v2).ok());  // out % 8
}

TEST(pack_hf_fp8, WeightAndTheMultiplierAsWeightScaleInv) {
  quant::fp8_rtn_options options;  // 128 x 128 blocks, f32 scales
  std::vector<float> w(3 * 200, 0.5F);
  w[199] = 448.0F;  // block (0, 1) has max 448: scale 1
  const quantized_linear layer = quant::quantize_fp8_rtn(w, 3, 200, options);
  const auto tensors = pack_hf_fp8("m", layer);
  ASSERT_TRUE(tensors.ok());
  const safetensors_tensor& weight = find(*tensors, "m.weight");
  EXPECT_EQ(weight.dtype, "F8_E4M3");
  EXPECT_EQ(weight.shape, (std::vector<std::int64_t>{3, 200}));
  EXPECT_EQ(static_cast<std::uint8_t>(weight.bytes[199]), 0x7E);
  const safetensors_tensor& scale = find(*tensors, "m.weight_scale_inv");
  EXPECT_EQ(scale.dtype, "F32");
  EXPECT_EQ(scale.shape, (std::vector<std::int64_t>{1, 2}));  // ceil(3/128), ceil(200/128)
  float s[2];
  std::memcpy(s, scale.bytes.data(), 8);
  EXPECT_EQ(s[0], 0.5F / 448.0F);
  EXPECT_EQ(s[1], 1.0F);
}

TEST(pack_compressed_fp8, ScaleShapesPerStrategyInTheModelDtype) {
  const std::vector<float> w(4 * 6, 0.25F);
  for (const auto& [strategy, shape] :
       {std::pair{quant::fp8_strategy::tensor, std::vector<std::int64_t>{1}},
        std::pair{quant::fp8_strategy::channel, std::vector<std::int64_t>{4, 1}}}) {
    quant::fp8_rtn_options options;
    options.strategy = strategy;
    options.scale_dtype = weight_dtype::bf16;
    const auto tensors = pack_compressed_fp8("m", quant::quantize_fp8_rtn(w, 4, 6, options),
                                             strategy, weight_dtype::bf16);
    ASSERT_TRUE(tensors.ok()) << tensors.err().message;
    const safetensors_tensor& scale = find(*tensors, "m.weight_scale");
    EXPECT_EQ(scale.dtype, "BF16");
    EXPECT_EQ(scale.shape, shape);
    EXPECT_EQ(find(*tensors, "m.weight").dtype, "F8_E4M3");
  }
}

}  // namespace
}  // namespace pagedserve::quantize
