// Round-to-nearest quantization against examples worked out by hand from the producers'
// formulas (docs/design/QUANTIZATION.md §1-3). fp16 values: 0.2 is stored as
// 1.599609375 * 2^-3 = 0.199951171875 (mantissa round(0.6 * 1024) = 614); 0.1 likewise as
// 0.0999755859375; 1/15 as 1.06640625 * 2^-4 = 0.066650390625 (mantissa 68).
#include "runtime/quant/rtn_quantize.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

namespace pagedserve::quant {
namespace {

using kernels::weight_format;

quantized_linear int_layer(const std::vector<float>& w, std::int64_t out, int_scheme scheme,
                           std::int64_t group_size = -1, int bits = 4, int min_zero = 0) {
  int_rtn_options options;
  options.bits = bits;
  options.group_size = group_size;
  options.scheme = scheme;
  options.min_zero = min_zero;
  return quantize_int_rtn(w, out, static_cast<std::int64_t>(w.size()) / out, options);
}

std::vector<int> codes_of_row(const quantized_linear& layer, std::int64_t n) {
  std::vector<int> codes;
  for (std::int64_t k = 0; k < layer.in_features; ++k) codes.push_back(layer.code(n, k));
  return codes;
}

TEST(quantize_int_rtn, AwqGroupOfFourAsWorkedByHand) {
  // s = (2 - (-1)) / 15 = 0.2 -> fp16 0.199951171875; z = -round(-1 / s) = -round(-5.0012) = 5;
  // q = round(w / s) + z: -5 + 5 = 0, 0 + 5 = 5, round(2.5006) + 5 = 8, round(10.0024) + 5 = 15.
  const quantized_linear layer = int_layer({-1.0F, 0.0F, 0.5F, 2.0F}, 1, int_scheme::awq);
  EXPECT_EQ(layer.format, weight_format::int4);
  EXPECT_EQ(layer.group_size, 4);
  ASSERT_EQ(layer.scales.size(), 1U);
  EXPECT_EQ(layer.scales[0], 0.199951171875F);
  EXPECT_EQ(layer.zeros[0], 5);
  EXPECT_EQ(codes_of_row(layer, 0), (std::vector<int>{0, 5, 8, 15}));
  // Two codes a byte, the even input in the low nibble.
  EXPECT_EQ(layer.codes, (std::vector<std::uint8_t>{0x50, 0xF8}));
  EXPECT_EQ(dequantize(layer), (std::vector<float>{-5 * 0.199951171875F, 0.0F, 3 * 0.199951171875F,
                                                   10 * 0.199951171875F}));
}

TEST(quantize_int_rtn, GptqSymmetricUsesTheMidpointZero) {
  // xmax = max(|-0.75|, 0.5) = 0.75, s = 1.5 / 15 = 0.1 -> 0.0999755859375, z = 8;
  // q = round(-7.5018) + 8 = 0, round(-1.0002) + 8 = 7, round(2.0005) + 8 = 10, round(5.0012) + 8
  // = 13.
  const quantized_linear layer =
      int_layer({-0.75F, -0.1F, 0.2F, 0.5F}, 1, int_scheme::gptq_symmetric);
  EXPECT_EQ(layer.scales[0], 0.0999755859375F);
  EXPECT_EQ(layer.zeros[0], 8);
  EXPECT_EQ(codes_of_row(layer, 0), (std::vector<int>{0, 7, 10, 13}));
}

TEST(quantize_int_rtn, GptqSymmetricGroupWithoutNegativesKeepsXminZero) {
  // AutoGPTQ find_params sets xmin = -xmax only where xmin < 0: here s = 1.5 / 15, z = 8, and
  // the upper half clips: q = 8, round(3.0007) + 8 = 11, 16 -> 15, 23 -> 15.
  const quantized_linear layer =
      int_layer({0.0F, 0.3F, 0.75F, 1.5F}, 1, int_scheme::gptq_symmetric);
  EXPECT_EQ(layer.scales[0], 0.0999755859375F);
  EXPECT_EQ(codes_of_row(layer, 0), (std::vector<int>{8, 11, 15, 15}));
}

TEST(quantize_int_rtn, GptqAsymmetricZeroFromTheMinimum) {
  // s = (1.3 + 0.2) / 15 -> 0.0999755859375, z = round(0.2 / s) = round(2.0005) = 2;
  // q = -2 + 2 = 0, 1 + 2 = 3, 4 + 2 = 6, round(13.0032) + 2 = 15.
  const quantized_linear layer =
      int_layer({-0.2F, 0.1F, 0.4F, 1.3F}, 1, int_scheme::gptq_asymmetric);
  EXPECT_EQ(layer.scales[0], 0.0999755859375F);
  EXPECT_EQ(layer.zeros[0], 2);
  EXPECT_EQ(codes_of_row(layer, 0), (std::vector<int>{0, 3, 6, 15}));
}

TEST(quantize_int_rtn, GptqV1MinimumZeroShiftsANonNegativeGroup) {
  // z = round(0 / s) = 0 cannot be stored as z - 1: with min_zero 1, q = w / s + 1 and the
  // top value (15.0037 + 1) clips to 15.
  const quantized_linear layer =
      int_layer({0.0F, 0.3F, 0.75F, 1.5F}, 1, int_scheme::gptq_asymmetric, -1, 4, 1);
  EXPECT_EQ(layer.zeros[0], 1);
  EXPECT_EQ(codes_of_row(layer, 0), (std::vector<int>{1, 4, 9, 15}));
}

TEST(quantize_int_rtn, AllZeroGroupGetsTheUnitRange) {
  // find_params: xmin = xmax = 0 becomes [-1, 1]: s = 2 / 15 -> 0.13330078125, z = 8.
  const quantized_linear layer = int_layer({0.0F, 0.0F}, 1, int_scheme::gptq_symmetric);
  EXPECT_EQ(layer.scales[0], 0.13330078125F);
  EXPECT_EQ(codes_of_row(layer, 0), (std::vector<int>{8, 8}));
}

TEST(quantize_int_rtn, EightBitsSymmetric) {
  // maxq 255, z 128; s = 2 / 255 -> fp16 1.00390625 * 2^-7 = 0.007843017578125;
  // q = round(-127.502) + 128 = 0, round(63.75) + 128 = 192.
  const quantized_linear layer = int_layer({-1.0F, 0.5F}, 1, int_scheme::gptq_symmetric, -1, 8);
  EXPECT_EQ(layer.format, weight_format::int8);
  EXPECT_EQ(layer.scales[0], 0.007843017578125F);
  EXPECT_EQ(layer.zeros[0], 128);
  EXPECT_EQ(layer.codes, (std::vector<std::uint8_t>{0, 192}));
}

TEST(quantize_int_rtn, GroupsAlongTheInputWithAPartialLastGroup) {
  const quantized_linear layer = int_layer(
      {-1.0F, 0.0F, 0.5F, 2.0F, 7.0F, -1.0F, 0.0F, 0.5F, 2.0F, 7.0F}, 2, int_scheme::awq, 4);
  EXPECT_EQ(layer.num_groups(), 2);
  ASSERT_EQ(layer.scales.size(), 4U);  // [out, groups]
  EXPECT_EQ(layer.scales[0], 0.199951171875F);
  EXPECT_EQ(layer.scales[2], 0.199951171875F);
  // A one-element group: s = clamp(0, 1e-5) / 15, z = clamp(-round(7 / s)) = 0, q = 15.
  EXPECT_EQ(layer.zeros[1], 0);
  EXPECT_EQ(layer.code(1, 4), 15);
}

TEST(quantize_int_rtn, ActOrderGroupsFollowInputOrder) {
  // Order [0, 2, 1, 3], groups of 2: {0.25, -0.5} and {16, -32}, each with its own scale:
  // s0 = 1/15 -> 0.066650390625 (q 12, 0), s1 = 64/15 -> 4.265625 (q 12, 0).
  int_rtn_options options;
  options.group_size = 2;
  options.scheme = int_scheme::gptq_symmetric;
  options.input_order = {0, 2, 1, 3};
  const quantized_linear layer =
      quantize_int_rtn(std::vector<float>{0.25F, 16.0F, -0.5F, -32.0F}, 1, 4, options);
  EXPECT_EQ(layer.input_order, options.input_order);
  EXPECT_EQ(layer.scales, (std::vector<float>{0.066650390625F, 4.265625F}));
  EXPECT_EQ(codes_of_row(layer, 0), (std::vector<int>{12, 0, 12, 0}));  // in input_order's order
  EXPECT_EQ(dequantize(layer), (std::vector<float>{4 * 0.066650390625F, 4 * 4.265625F,
                                                   -8 * 0.066650390625F, -8 * 4.265625F}));
}

TEST(quantize_fp8_rtn, ExactScaleOneGivesTheE4m3Patterns) {
  fp8_rtn_options options;
  options.strategy = fp8_strategy::tensor;
  const std::vector<float> w = {448.0F, -448.0F, std::ldexp(1.0F, -6), std::ldexp(1.0F, -9)};
  const quantized_linear layer = quantize_fp8_rtn(w, 2, 2, options);
  EXPECT_EQ(layer.format, weight_format::fp8_e4m3);
  EXPECT_EQ(layer.scales, std::vector<float>{1.0F});  // 448 / 448
  EXPECT_EQ(layer.block_rows, 2);
  EXPECT_EQ(layer.group_size, 2);
  EXPECT_EQ(layer.codes, (std::vector<std::uint8_t>{0x7E, 0xFE, 0x08, 0x01}));
  EXPECT_EQ(dequantize(layer), w);
}

TEST(quantize_fp8_rtn, ChannelScalesInBf16) {
  // Row 0: s = 3.5 / 448 = 2^-7, codes of 128, -64, 32, 448: 0x70, 0xE8, 0x60, 0x7E.
  // Row 1: all zero: s = bf16 epsilon 2^-7, codes 0.
  // Row 2: s = 3 / 448 = 1.714 * 2^-8 -> bf16 1.7109375 * 2^-8 (mantissa 91 of 128); -3 / s =
  // -448.88 clamps to -448 (0xFE); 1 / s = 149.6 -> 1.125 * 2^7 = 144 (0x71).
  fp8_rtn_options options;
  options.strategy = fp8_strategy::channel;
  options.scale_dtype = weight_dtype::bf16;
  const std::vector<float> w = {1.0F, -0.5F, 0.25F, 3.5F, 0, 0, 0, 0, -3.0F, 1.0F, 0, 0};
  const quantized_linear layer = quantize_fp8_rtn(w, 3, 4, options);
  EXPECT_EQ(layer.block_rows, 1);
  EXPECT_EQ(layer.scales, (std::vector<float>{0x1.0p-7F, 0x1.0p-7F, 1.7109375F * 0x1.0p-8F}));
  EXPECT_EQ(layer.codes,
            (std::vector<std::uint8_t>{0x70, 0xE8, 0x60, 0x7E, 0, 0, 0, 0, 0xFE, 0x71, 0, 0}));
}

TEST(quantize_fp8_rtn, BlocksTileBothDimensionsWithPartialEdges) {
  // 3 x 3 in 2 x 2 blocks: scales [2, 2] = max|tile| / 448 of {1,2,3,4}, {10,20}, {5,6}, {30}.
  fp8_rtn_options options;
  options.block_rows = 2;
  options.block_cols = 2;
  const std::vector<float> w = {1, 2, 10, 3, 4, 20, 5, 6, 30};
  const quantized_linear layer = quantize_fp8_rtn(w, 3, 3, options);
  EXPECT_EQ(layer.num_scale_rows(), 2);
  EXPECT_EQ(layer.num_groups(), 2);
  EXPECT_EQ(layer.scales,
            (std::vector<float>{4.0F / 448.0F, 20.0F / 448.0F, 6.0F / 448.0F, 30.0F / 448.0F}));
  for (std::size_t i : {4U, 5U, 7U, 8U}) EXPECT_EQ(layer.codes[i], 0x7E) << i;  // tile maxima
}

TEST(round_to_dtype, Fp16AndBf16RoundToNearestEven) {
  EXPECT_EQ(round_to_dtype(0.2F, weight_dtype::f16), 0.199951171875F);
  EXPECT_EQ(round_to_dtype(0.2F, weight_dtype::bf16), 0.2001953125F);  // 1.6015625 * 2^-3
  EXPECT_EQ(round_to_dtype(0.2F, weight_dtype::f32), 0.2F);
}

}  // namespace
}  // namespace pagedserve::quant
