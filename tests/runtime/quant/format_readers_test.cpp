// The format readers against layers written word by word from QUANTIZATION.md's rules:
// AWQ's interleaved output packing, GPTQ's input packing with v1's stored z - 1 and
// act-order's g_idx, FP8 block and channel scales; and the errors of inconsistent files.

#include "runtime/quant/format_readers.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "tests/runtime/quant/stored_file_builder.h"

namespace pagedserve::quant {
namespace {

using ::testing::HasSubstr;
using testing::stored_file_builder;

constexpr std::uint16_t f16_one = 0x3C00;
constexpr std::uint16_t f16_half = 0x3800;

struct read_fixture {
  pagedserve::testing::temp_dir dir{"format-readers"};

  result<quantized_linear> read(const stored_file_builder& file, const quant_spec& spec,
                                std::int64_t out, std::int64_t in) {
    file.write(dir.path());
    auto files = checkpoint_files::open(dir.path());
    EXPECT_TRUE(files) << files.err().message;
    return read_quantized_linear(*files, spec, {"layer", out, in});
  }
};

quant_spec awq_spec() {
  quant_spec spec;
  spec.method = quant_method::awq;
  spec.bits = 4;
  spec.group_size = -1;
  spec.source = "config.json";
  return spec;
}

quant_spec gptq_spec(bool v1, bool symmetric, std::int64_t group) {
  quant_spec spec;
  spec.method = quant_method::gptq;
  spec.bits = 4;
  spec.group_size = group;
  spec.has_zero_points = !symmetric;
  spec.zeros_stored_minus_one = v1;
  spec.source = "config.json";
  return spec;
}

void expect_weights(const quantized_linear& layer, const std::vector<float>& expected) {
  const std::vector<float> w = dequantize(layer);
  ASSERT_EQ(w.size(), expected.size());
  for (std::size_t i = 0; i < w.size(); ++i) EXPECT_EQ(w[i], expected[i]) << "element " << i;
}

// Input row 0 holds codes 0..7 for columns 0..7, row 1 codes 8..15. Nibble i of a word holds
// column [0,2,4,6,1,3,5,7][i], so row 0's word, read nibble 7 down to 0, is 7 5 3 1 6 4 2 0.
TEST(AwqReader, UndoesTheOutputInterleave) {
  read_fixture f;
  stored_file_builder file;
  file.add<std::uint32_t>("layer.qweight", "I32", {2, 1}, {0x75316420U, 0xFDB9ECA8U})
      .add<std::uint32_t>("layer.qzeros", "I32", {1, 1}, {0x00000000U})
      .add<std::uint16_t>("layer.scales", "F16", {1, 8}, std::vector<std::uint16_t>(8, f16_half));
  auto layer = f.read(file, awq_spec(), 8, 2);
  ASSERT_TRUE(layer) << layer.err().message;
  std::vector<float> expected;
  for (int n = 0; n < 8; ++n) {
    expected.push_back(0.5F * static_cast<float>(n));
    expected.push_back(0.5F * static_cast<float>(8 + n));
  }
  expect_weights(*layer, expected);
}

TEST(AwqReader, ReadsInterleavedZeroPoints) {
  read_fixture f;
  stored_file_builder file;  // every code 15; zero of column n is n
  file.add<std::uint32_t>("layer.qweight", "I32", {1, 1}, {0xFFFFFFFFU})
      .add<std::uint32_t>("layer.qzeros", "I32", {1, 1}, {0x75316420U})
      .add<std::uint16_t>("layer.scales", "F16", {1, 8}, std::vector<std::uint16_t>(8, f16_one));
  auto layer = f.read(file, awq_spec(), 8, 1);
  ASSERT_TRUE(layer) << layer.err().message;
  expect_weights(*layer, {15, 14, 13, 12, 11, 10, 9, 8});
}

TEST(AwqReader, RejectsAQweightOfAnotherShape) {
  read_fixture f;
  stored_file_builder file;
  file.add<std::uint32_t>("layer.qweight", "I32", {1, 2}, {0U, 0U})  // GEMV-like [out, in/8]
      .add<std::uint32_t>("layer.qzeros", "I32", {1, 1}, {0U})
      .add<std::uint16_t>("layer.scales", "F16", {1, 8}, std::vector<std::uint16_t>(8, f16_one));
  auto layer = f.read(file, awq_spec(), 8, 1);
  ASSERT_FALSE(layer);
  EXPECT_EQ(layer.err().code, error_code::corrupt_data);
  EXPECT_THAT(layer.err().message, HasSubstr("'layer.qweight' has shape [1, 2]"));
  EXPECT_THAT(layer.err().message, HasSubstr("[1, 1]"));
}

// Eight input rows in one word per column, nibble j = row j: codes 1..8 are 0x87654321.
// Symmetric 4-bit: v1 stores z - 1 = 7 in every nibble, v2 stores 8.
stored_file_builder gptq_symmetric_file(std::uint32_t zero_word) {
  stored_file_builder file;
  file.add<std::uint32_t>("layer.qweight", "I32", {1, 8},
                          std::vector<std::uint32_t>(8, 0x87654321U))
      .add<std::uint32_t>("layer.qzeros", "I32", {1, 1}, {zero_word})
      .add<std::uint16_t>("layer.scales", "F16", {1, 8}, std::vector<std::uint16_t>(8, f16_one));
  return file;
}

std::vector<float> gptq_symmetric_weights() {
  std::vector<float> w;
  for (int n = 0; n < 8; ++n) {
    for (int k = 0; k < 8; ++k) w.push_back(static_cast<float>(k + 1 - 8));
  }
  return w;
}

TEST(GptqReader, V1AddsOneToTheStoredZeros) {
  read_fixture f;
  auto layer = f.read(gptq_symmetric_file(0x77777777U), gptq_spec(true, true, -1), 8, 8);
  ASSERT_TRUE(layer) << layer.err().message;
  expect_weights(*layer, gptq_symmetric_weights());
}

TEST(GptqReader, V2ReadsTheZerosAsStored) {
  read_fixture f;
  auto layer = f.read(gptq_symmetric_file(0x88888888U), gptq_spec(false, true, -1), 8, 8);
  ASSERT_TRUE(layer) << layer.err().message;
  expect_weights(*layer, gptq_symmetric_weights());
}

TEST(GptqReader, RefusesZerosThatContradictTheFormat) {
  read_fixture f;
  // A v2 file labelled gptq (v1): trap 2, the Qwen3.5-27B-GPTQ-Int4 case.
  auto mislabelled_v2 = f.read(gptq_symmetric_file(0x88888888U), gptq_spec(true, true, -1), 8, 8);
  ASSERT_FALSE(mislabelled_v2);
  EXPECT_EQ(mislabelled_v2.err().code, error_code::corrupt_data);
  EXPECT_THAT(mislabelled_v2.err().message, HasSubstr("'layer.qzeros' stores zero point 8"));
  EXPECT_THAT(mislabelled_v2.err().message, HasSubstr("contradicts"));
  auto mislabelled_v1 = f.read(gptq_symmetric_file(0x77777777U), gptq_spec(false, true, -1), 8, 8);
  ASSERT_FALSE(mislabelled_v1);
  EXPECT_THAT(mislabelled_v1.err().message, HasSubstr("stores zero point 7"));
}

// Act-order: g_idx alternates groups 1, 0, 1, 0, ...; group 0 has scale 1, group 1 scale 0.5.
TEST(GptqReader, ActOrderReadsGroupsFromGIdx) {
  read_fixture f;
  std::vector<std::int32_t> g_idx;
  for (int k = 0; k < 16; ++k) g_idx.push_back(k % 2 == 0 ? 1 : 0);
  std::vector<std::uint16_t> scales(8, f16_one);
  scales.resize(16, f16_half);
  stored_file_builder file;
  file.add<std::uint32_t>("layer.qweight", "I32", {2, 8},
                          std::vector<std::uint32_t>(16, 0x87654321U))
      .add<std::uint32_t>("layer.qzeros", "I32", {2, 1}, {0U, 0U})
      .add<std::uint16_t>("layer.scales", "F16", {2, 8}, scales)
      .add<std::int32_t>("layer.g_idx", "I32", {16}, g_idx);
  quant_spec spec = gptq_spec(false, false, 8);
  spec.desc_act = true;
  auto layer = f.read(file, spec, 8, 16);
  ASSERT_TRUE(layer) << layer.err().message;
  EXPECT_EQ(layer->input_order.size(), 16U);
  std::vector<float> expected;
  for (int n = 0; n < 8; ++n) {
    for (int k = 0; k < 16; ++k) {
      expected.push_back(static_cast<float>(k % 8 + 1) * (k % 2 == 0 ? 0.5F : 1.0F));
    }
  }
  expect_weights(*layer, expected);
}

TEST(GptqReader, RefusesAGIdxWithUnevenGroups) {
  read_fixture f;
  stored_file_builder file;
  file.add<std::uint32_t>("layer.qweight", "I32", {2, 8}, std::vector<std::uint32_t>(16, 0U))
      .add<std::uint32_t>("layer.qzeros", "I32", {2, 1}, {0U, 0U})
      .add<std::uint16_t>("layer.scales", "F16", {2, 8}, std::vector<std::uint16_t>(16, f16_one))
      .add<std::int32_t>("layer.g_idx", "I32", {16}, std::vector<std::int32_t>(16, 0));
  quant_spec spec = gptq_spec(false, false, 8);
  spec.desc_act = true;
  auto layer = f.read(file, spec, 8, 16);
  ASSERT_FALSE(layer);
  EXPECT_THAT(layer.err().message, HasSubstr("'layer.g_idx'"));
}

quant_spec fp8_block_spec() {
  quant_spec spec;
  spec.method = quant_method::fp8;
  spec.weight_strategy = scale_strategy::block;
  spec.weight_block_rows = 2;
  spec.weight_block_cols = 4;
  spec.activations = activation_scheme::dynamic_per_group;
  spec.source = "config.json";
  return spec;
}

// e4m3 codes: 0x38 = 1.0, 0xB8 = -1.0, 0x01 = 2^-9 (least subnormal), 0x7E = 448, 0x08 = 2^-6.
TEST(Fp8Reader, BlockScalesAreMultipliersOverPartialBlocks) {
  read_fixture f;
  const std::vector<std::uint8_t> codes = {0x38, 0xB8, 0x01, 0x7E, 0x08,   // row 0
                                           0x38, 0x38, 0x38, 0x38, 0x38,   // row 1
                                           0xB8, 0x01, 0x7E, 0x08, 0x38};  // row 2
  stored_file_builder file;  // blocks of 2 x 4 over 3 x 5: scales [2, 2]
  file.add<std::uint8_t>("layer.weight", "F8_E4M3", {3, 5}, codes)
      .add<float>("layer.weight_scale_inv", "F32", {2, 2}, {1.0F, 2.0F, 0.25F, 4.0F});
  auto layer = f.read(file, fp8_block_spec(), 3, 5);
  ASSERT_TRUE(layer) << layer.err().message;
  const float tiny = std::ldexp(1.0F, -9);
  const float small = std::ldexp(1.0F, -6);
  expect_weights(*layer, {1, -1, tiny, 448, 2 * small,  //
                          1, 1, 1, 1, 2,                //
                          -0.25F, 0.25F * tiny, 0.25F * 448, 0.25F * small, 4});
}

TEST(Fp8Reader, ChannelScalesComeInTheWeightsDtype) {
  read_fixture f;
  quant_spec spec;
  spec.method = quant_method::compressed_tensors;
  spec.weight_strategy = scale_strategy::channel;
  spec.activations = activation_scheme::dynamic_per_token;
  stored_file_builder file;  // bf16 1.0 = 0x3F80, 2.0 = 0x4000
  file.add<std::uint8_t>("layer.weight", "F8_E4M3", {2, 2}, {0x38, 0xB8, 0x38, 0x01})
      .add<std::uint16_t>("layer.weight_scale", "BF16", {2, 1}, {0x3F80, 0x4000});
  auto layer = f.read(file, spec, 2, 2);
  ASSERT_TRUE(layer) << layer.err().message;
  expect_weights(*layer, {1, -1, 2, 2 * std::ldexp(1.0F, -9)});
  EXPECT_TRUE(layer->fp8_activations);  // W8A8: a backend in fp8 may quantize x per token
}

// A weight-only checkpoint (no input_activations) must keep x as it is on every backend.
TEST(Fp8Reader, OnlyW8A8CheckpointsAskForFp8Activations) {
  read_fixture f;
  quant_spec spec;
  spec.method = quant_method::compressed_tensors;
  spec.weight_strategy = scale_strategy::channel;
  spec.activations = activation_scheme::none;
  stored_file_builder file;
  file.add<std::uint8_t>("layer.weight", "F8_E4M3", {2, 2}, {0x38, 0xB8, 0x38, 0x01})
      .add<float>("layer.weight_scale", "F32", {2, 1}, {1.0F, 2.0F});
  auto layer = f.read(file, spec, 2, 2);
  ASSERT_TRUE(layer) << layer.err().message;
  EXPECT_FALSE(layer->fp8_activations);
  EXPECT_FALSE(layer->host_view().fp8_activations);
  spec.activations = activation_scheme::static_per_tensor;
  file.add<float>("layer.input_scale", "F32", {1}, {0.5F});
  auto w8a8 = f.read(file, spec, 2, 2);
  ASSERT_TRUE(w8a8) << w8a8.err().message;
  EXPECT_TRUE(w8a8->host_view().fp8_activations);
}

TEST(Fp8Reader, RefusesNanScalesNanCodesAndMissingScales) {
  read_fixture f;
  stored_file_builder nan_scale;
  nan_scale
      .add<std::uint8_t>("layer.weight", "F8_E4M3", {3, 5}, std::vector<std::uint8_t>(15, 0x38))
      .add<float>("layer.weight_scale_inv", "F32", {2, 2}, {1.0F, NAN, 1.0F, 1.0F});
  auto a = f.read(nan_scale, fp8_block_spec(), 3, 5);
  ASSERT_FALSE(a);
  EXPECT_THAT(a.err().message, HasSubstr("'layer.weight_scale_inv' holds scale nan"));

  stored_file_builder nan_code;
  std::vector<std::uint8_t> codes(15, 0x38);
  codes[7] = 0x7F;
  nan_code.add<std::uint8_t>("layer.weight", "F8_E4M3", {3, 5}, codes)
      .add<float>("layer.weight_scale_inv", "F32", {2, 2}, {1.0F, 1.0F, 1.0F, 1.0F});
  auto b = f.read(nan_code, fp8_block_spec(), 3, 5);
  ASSERT_FALSE(b);
  EXPECT_THAT(b.err().message, HasSubstr("'layer.weight' holds NaN at element 7"));

  stored_file_builder no_scale;
  no_scale.add<std::uint8_t>("layer.weight", "F8_E4M3", {3, 5},
                             std::vector<std::uint8_t>(15, 0x38));
  auto c = f.read(no_scale, fp8_block_spec(), 3, 5);
  ASSERT_FALSE(c);
  EXPECT_EQ(c.err().code, error_code::not_found);
  EXPECT_THAT(c.err().message, HasSubstr("'layer.weight_scale_inv' is missing"));
}

}  // namespace
}  // namespace pagedserve::quant
