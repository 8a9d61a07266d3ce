// The fp8 e4m3 codec of the CUDA kernels (cuda_fp8.h's conversions: the hardware's cvt on a
// GPU, NVIDIA's software path on the SIMT emulator) against the CPU's (kernels/fp8_e4m3.h,
// itself checked against PyTorch's float8_e4m3fn in tests/kernels/cpu): encoding through
// kv_write on every finite code's value, every tie between neighbouring codes, values past
// 448 and random ones; decoding through paged_attention over a one-key cache whose value row
// holds all 256 codes (one key: the output is that row times the scale, NaN codes included).
// fp32 compute, so that no rounding to a 16-bit type comes between.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "kernels/fp8_e4m3.h"
#include "tests/kernels/cuda/cuda_test_support.h"

namespace pagedserve::kernels::testing {
namespace {

using cuda_fp8_codec = cuda_vs_cpu;

constexpr std::int64_t row_width = 256;  // one KV head of head_dim 256: one row per token

// Every finite code's value, the midpoint (a tie) between each two neighbouring codes of the
// same sign, values past the largest code, and random values over the whole range.
std::vector<float> encoding_inputs() {
  std::vector<float> values;
  for (int sign = 0; sign < 2; ++sign) {
    for (int magnitude = 0; magnitude < 0x7F; ++magnitude) {
      const auto code = static_cast<std::uint8_t>((sign << 7) | magnitude);
      values.push_back(e4m3_to_f32(code));
      if (magnitude + 1 < 0x7F) {
        const auto next = static_cast<std::uint8_t>(code + 1);
        values.push_back((e4m3_to_f32(code) + e4m3_to_f32(next)) / 2.0F);
      }
    }
  }
  for (float big : {448.5F, 463.9F, 464.0F, 500.0F, 1e30F, std::numeric_limits<float>::max(),
                    std::numeric_limits<float>::infinity()}) {
    values.push_back(big);
    values.push_back(-big);
  }
  std::mt19937 gen(7);
  std::uniform_real_distribution<float> exponent(-12.0F, 9.5F);
  while (values.size() % row_width != 0 || values.size() < 1024) {
    const float x = std::exp2(exponent(gen));
    values.push_back(values.size() % 2 == 0 ? x : -x);
  }
  return values;
}

std::vector<std::uint8_t> codes_of(backend& be, const tensor& t) {
  be.synchronize();
  std::vector<std::uint8_t> out(static_cast<std::size_t>(t.numel()));
  be.copy_to_host(out.data(), t);
  return out;
}

TEST_P(cuda_fp8_codec, KvWriteEncodesAsTheCpuCodec) {
  const std::vector<float> inputs = encoding_inputs();
  const auto num_tokens = static_cast<std::int64_t>(inputs.size()) / row_width;
  std::vector<std::int32_t> slots(static_cast<std::size_t>(num_tokens));
  for (std::int64_t t = 0; t < num_tokens; ++t)
    slots[static_cast<std::size_t>(t)] = static_cast<std::int32_t>(t);
  const auto encode = [&](backend& be, float scale) {
    buffer keys = be.allocate(dtype::u8, {num_tokens, 1, 1, row_width});
    buffer values = be.allocate(dtype::u8, {num_tokens, 1, 1, row_width});
    buffer x = upload(be, inputs, {num_tokens, 1, row_width});
    buffer slot_mapping = upload_i32(be, slots, {num_tokens});
    be.kv_write({keys.view(), values.view(), x.view(), x.view(), slot_mapping.view(), 1.0F, scale});
    return std::pair{codes_of(be, keys.view()), codes_of(be, values.view())};
  };
  // Scale 1 hits the ties exactly; 0.37 puts the same inputs between them.
  const auto on_gpu = encode(*gpu_, 0.37F);
  const auto on_cpu = encode(*cpu_, 0.37F);
  std::size_t differing = 0;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (on_gpu.first[i] != on_cpu.first[i]) {
      if (++differing <= 8) {
        ADD_FAILURE() << "scale 1: " << inputs[i] << " encodes as 0x" << std::hex
                      << int{on_gpu.first[i]} << " on the device, 0x" << int{on_cpu.first[i]}
                      << " on the CPU";
      }
    }
  }
  EXPECT_EQ(differing, 0U);
  EXPECT_EQ(on_gpu.second, on_cpu.second) << "scale 0.37";
}

TEST_P(cuda_fp8_codec, AttentionDecodesEveryCodeAsTheCpuCodec) {
  // One block of 16 slots; slot 0 is the key's, the rest stay zero.
  std::vector<std::uint8_t> value_block(static_cast<std::size_t>(16 * row_width), 0);
  std::vector<std::uint8_t> key_block(value_block.size(), 0);
  for (std::size_t code = 0; code < static_cast<std::size_t>(row_width); ++code) {
    value_block[code] = static_cast<std::uint8_t>(code);
    key_block[code] = static_cast<std::uint8_t>((code * 37) % 0x7E);  // finite keys
  }
  const float value_scale = 0.75F;
  const auto decode = [&](backend& be) {
    buffer keys = be.allocate(dtype::u8, {1, 16, 1, row_width});
    buffer values = be.allocate(dtype::u8, {1, 16, 1, row_width});
    be.copy_from_host(keys.view(), key_block.data());
    be.copy_from_host(values.view(), value_block.data());
    buffer query = upload(be, random(static_cast<std::size_t>(row_width), 3), {1, 1, row_width});
    buffer out = be.allocate(dtype::f32, {1, 1, row_width});
    buffer query_start = upload_i32(be, {0, 1}, {2});
    buffer context_lens = upload_i32(be, {1}, {1});
    buffer tables = upload_i32(be, {0}, {1, 1});
    paged_attention_params p;
    p.out = out.view();
    p.query = query.view();
    p.key_cache = keys.view();
    p.value_cache = values.view();
    p.query_start = query_start.view();
    p.context_lens = context_lens.view();
    p.block_tables = tables.view();
    p.scale = 0.0625F;
    p.max_context_len = 1;
    p.max_query_len = 1;
    p.key_scale = 0.5F;
    p.value_scale = value_scale;
    be.paged_attention(p);
    return download(be, out.view());
  };
  const std::vector<float> on_gpu = decode(*gpu_);
  const std::vector<float> on_cpu = decode(*cpu_);
  for (std::size_t code = 0; code < static_cast<std::size_t>(row_width); ++code) {
    const float want = e4m3_to_f32(static_cast<std::uint8_t>(code)) * value_scale;
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(on_gpu[code]) && std::isnan(on_cpu[code])) << "code " << code;
    } else {
      EXPECT_EQ(on_gpu[code], want) << "code " << code;
      EXPECT_EQ(on_cpu[code], want) << "code " << code;
    }
  }
}

// fp32 only: the ties are no 16-bit values, and every decoded value is compared exactly.
INSTANTIATE_TEST_SUITE_P(compute_types, cuda_fp8_codec, ::testing::Values(dtype::f32), dtype_name);

}  // namespace
}  // namespace pagedserve::kernels::testing
