// Expected values are IEEE 754 facts worked out by hand from the bit patterns.
#include "runtime/model/dtype.h"

#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <vector>

#include "runtime/model/checkpoint.h"

namespace pagedserve {
namespace {

TEST(f16_to_f32, NormalValues) {
  EXPECT_EQ(f16_to_f32(0x3C00), 1.0F);
  EXPECT_EQ(f16_to_f32(0xC000), -2.0F);
  EXPECT_EQ(f16_to_f32(0x3800), 0.5F);
  EXPECT_EQ(f16_to_f32(0x3555), 0.333251953125F);        // 1365/4096
  EXPECT_EQ(f16_to_f32(0x7BFF), 65504.0F);               // largest finite half
  EXPECT_EQ(f16_to_f32(0x0400), std::ldexp(1.0F, -14));  // smallest normal
}

TEST(f16_to_f32, SignedZeros) {
  EXPECT_EQ(std::bit_cast<std::uint32_t>(f16_to_f32(0x0000)), 0x00000000U);
  EXPECT_EQ(std::bit_cast<std::uint32_t>(f16_to_f32(0x8000)), 0x80000000U);
}

TEST(f16_to_f32, Subnormals) {
  EXPECT_EQ(f16_to_f32(0x0001), std::ldexp(1.0F, -24));     // smallest subnormal
  EXPECT_EQ(f16_to_f32(0x0200), std::ldexp(1.0F, -15));     // top mantissa bit only
  EXPECT_EQ(f16_to_f32(0x03FF), std::ldexp(1023.0F, -24));  // largest subnormal
  EXPECT_EQ(f16_to_f32(0x8003), -std::ldexp(3.0F, -24));
}

TEST(f16_to_f32, InfinitiesAndNan) {
  EXPECT_EQ(f16_to_f32(0x7C00), INFINITY);
  EXPECT_EQ(f16_to_f32(0xFC00), -INFINITY);
  EXPECT_TRUE(std::isnan(f16_to_f32(0x7E00)));
  EXPECT_TRUE(std::isnan(f16_to_f32(0x7C01)));  // signalling pattern stays NaN, not inf
  EXPECT_TRUE(std::isnan(f16_to_f32(0xFE00)));
}

TEST(f16_to_f32, EveryFiniteHalfRoundTripsThroughDouble) {
  // Independent formula: (-1)^s * 2^(e-15) * (1 + m/1024), or 2^-14 * m/1024 when e == 0.
  for (std::uint32_t bits = 0; bits < 0x10000; ++bits) {
    const std::uint32_t e = (bits >> 10) & 0x1F;
    if (e == 0x1F) continue;
    const double m = static_cast<double>(bits & 0x3FF) / 1024.0;
    const double magnitude =
        e == 0 ? std::ldexp(m, -14) : std::ldexp(1.0 + m, static_cast<int>(e) - 15);
    const double expected = (bits & 0x8000) ? -magnitude : magnitude;
    ASSERT_EQ(static_cast<double>(f16_to_f32(static_cast<std::uint16_t>(bits))), expected)
        << "bits 0x" << std::hex << bits;
  }
}

TEST(bf16_to_f32, KnownPatterns) {
  EXPECT_EQ(bf16_to_f32(0x3F80), 1.0F);
  EXPECT_EQ(bf16_to_f32(0xC040), -3.0F);
  EXPECT_EQ(bf16_to_f32(0x3EAB), 0.333984375F);
  EXPECT_EQ(bf16_to_f32(0x0001), std::ldexp(1.0F, -133));  // smallest fp32 subnormal range
  EXPECT_EQ(bf16_to_f32(0x7F80), INFINITY);
  EXPECT_EQ(bf16_to_f32(0xFF80), -INFINITY);
  EXPECT_TRUE(std::isnan(bf16_to_f32(0x7FC0)));
}

TEST(f32_to_bf16, RoundsToNearestEven) {
  EXPECT_EQ(f32_to_bf16(1.0F), 0x3F80);
  EXPECT_EQ(f32_to_bf16(std::bit_cast<float>(0x3F808000U)), 0x3F80);  // tie, even stays
  EXPECT_EQ(f32_to_bf16(std::bit_cast<float>(0x3F818000U)), 0x3F82);  // tie, odd rounds up
  EXPECT_EQ(f32_to_bf16(std::bit_cast<float>(0x3F808001U)), 0x3F81);  // above half
  EXPECT_EQ(f32_to_bf16(std::bit_cast<float>(0x3F807FFFU)), 0x3F80);  // below half
  EXPECT_EQ(f32_to_bf16(std::bit_cast<float>(0x7F7FFFFFU)), 0x7F80);  // overflows to inf
  EXPECT_EQ(f32_to_bf16(-INFINITY), 0xFF80);
  EXPECT_TRUE(std::isnan(bf16_to_f32(f32_to_bf16(std::bit_cast<float>(0x7F800001U)))));
}

TEST(convert_to_f32, WidensEachDtype) {
  const std::array<std::uint16_t, 3> halves{0x3C00, 0x0001, 0xFC00};
  std::vector<std::byte> bytes(sizeof halves);
  std::memcpy(bytes.data(), halves.data(), sizeof halves);
  host_tensor f16{"h", weight_dtype::f16, {3}, bytes};
  std::vector<float> out(3);
  convert_to_f32(f16, out);
  EXPECT_EQ(out, (std::vector<float>{1.0F, std::ldexp(1.0F, -24), -INFINITY}));

  const std::array<std::uint16_t, 3> brains{0x3F80, 0xC040, 0x0000};
  std::memcpy(bytes.data(), brains.data(), sizeof brains);
  host_tensor bf16{"b", weight_dtype::bf16, {3}, bytes};
  convert_to_f32(bf16, out);
  EXPECT_EQ(out, (std::vector<float>{1.0F, -3.0F, 0.0F}));

  const std::array<float, 2> singles{1.5F, -0.25F};
  std::vector<std::byte> single_bytes(sizeof singles);
  std::memcpy(single_bytes.data(), singles.data(), sizeof singles);
  host_tensor f32{"s", weight_dtype::f32, {1, 2}, single_bytes};
  std::vector<float> out2(2);
  convert_to_f32(f32, out2);
  EXPECT_EQ(out2, (std::vector<float>{1.5F, -0.25F}));
}

TEST(element_size, PerDtype) {
  EXPECT_EQ(element_size(weight_dtype::f32), 4U);
  EXPECT_EQ(element_size(weight_dtype::bf16), 2U);
  EXPECT_EQ(element_size(weight_dtype::f16), 2U);
}

}  // namespace
}  // namespace pagedserve
