// int4 linear in the CPU's tiles (kernels/cpu/int4_tiles.h), against the same independent
// reference as the host layout's tests: W dequantized from the contract of kernels/ops.h,
// x W^T in double. Exact mode (x in four int8 limbs) within the fp32 bound of
// quantized_linear_test; int8 activations (one limb) against x quantized as Q8_0 here.
// Shapes: outputs that leave a tile partial, partial last groups, one group per row, groups
// of 8 | 48 | 64 | 128 columns, act-order, rows on both sides of the int8 mode's limit (64);
// then the backend's upload (layers and expert stacks) and the refusals.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/cpu/cpu_backend.h"
#include "kernels/cpu/int4_tiles.h"
#include "kernels/cpu/linear_op.h"
#include "kernels/cpu/simd/simd_kernels.h"
#include "kernels/moe_ops.h"
#include "tests/kernels/cpu/quantized_layer_support.h"

namespace pagedserve::kernels::testing {
namespace {

const cpu::simd::kernel_set* tiles_set() {
  const cpu::simd::kernel_set* set = cpu::simd::kernels_named("avx512_vnni");
  return set != nullptr && set->int4_tiles != nullptr ? set : nullptr;
}

// A host layer and its tiles.
struct tiled_layer {
  host_layer host;
  std::vector<std::uint8_t> tiles;

  quantized_weight view() {
    quantized_weight w = host.view();
    const cpu::int4_tiles_layout l = cpu::int4_tiles_layout_of(w);
    tiles.assign(static_cast<std::size_t>(l.num_tiles * l.tile_bytes), 0xAA);
    cpu::pack_int4_tiles(w, tiles.data());
    w.packing = cpu::int4_tiles_packing;
    w.codes = tensor::make(tiles.data(), dtype::u8, {l.num_tiles * l.tile_bytes});
    w.scales = {};
    w.zeros = {};
    return w;
  }
};

std::vector<float> run(const quantized_weight& w, const std::vector<float>& x, std::int64_t m,
                       const cpu::simd::kernel_set& set, bool int8_activations) {
  std::vector<float> out(static_cast<std::size_t>(m * w.out_features), -7.0F);
  linear_params p;
  p.x = tensor::make(const_cast<float*>(x.data()), dtype::f32, {m, w.in_features});
  p.out = tensor::make(out.data(), dtype::f32, {m, w.out_features});
  p.quantized = w;
  cpu::quantized_linear(p, set, {int8_activations});
  return out;
}

// Each output within 1e-5 of the sum of |x| |w| it is made of, against x W^T with x as given
// (want_x: the exact x, or its Q8 twin).
void expect_near_reference(const host_layer& l, const std::vector<float>& x,
                           const std::vector<double>& want_x, const std::vector<float>& got,
                           std::int64_t m) {
  const std::vector<double> w = reference_weight(l);
  const std::vector<double> w_magnitude = reference_weight(l, true);
  for (std::int64_t i = 0; i < m; ++i) {
    for (std::int64_t n = 0; n < l.out; ++n) {
      double want = 0.0;
      double magnitude = 0.0;
      for (std::int64_t k = 0; k < l.in; ++k) {
        const auto at = static_cast<std::size_t>(n * l.in + k);
        want += want_x[static_cast<std::size_t>(i * l.in + k)] * w[at];
        magnitude += std::abs(double{x[static_cast<std::size_t>(i * l.in + k)]}) * w_magnitude[at];
      }
      ASSERT_NEAR(got[static_cast<std::size_t>(i * l.out + n)], want, 1e-5 * magnitude)
          << "m " << m << " row " << i << " column " << n;
    }
  }
}

void expect_matches(const layer_shape& shape, std::int64_t m, bool int8_activations,
                    std::vector<float> x = {}) {
  tiled_layer l{random_layer(shape, static_cast<std::uint32_t>(m * 13 + shape.in)), {}};
  ASSERT_TRUE(cpu::has_int4_tiles_layout(l.host.view()));
  if (x.empty()) x = random_floats(static_cast<std::size_t>(m * shape.in), 31);
  const std::vector<float> got = run(l.view(), x, m, *tiles_set(), int8_activations);
  const bool q8 = int8_activations && m <= 64;
  expect_near_reference(l.host, x,
                        q8 ? q8_reference_x(l.host, x, m) : std::vector<double>(x.begin(), x.end()),
                        got, m);
}

const std::vector<layer_shape> shapes = {
    {weight_format::int4, 64, 704, 64},            // 11 groups, whole tiles
    {weight_format::int4, 50, 200, 64},            // partial tile, partial last group
    {weight_format::int4, 37, 200, 200},           // one group per row
    {weight_format::int4, 24, 96, 48},             // groups of 48 columns
    {weight_format::int4, 20, 64, 8},              // groups of one unit
    {weight_format::int4, 48, 256, 32, 1, true},   // act-order
    {weight_format::int4, 40, 640, 128, 1, true},  // act-order, groups of 128
    {weight_format::int4, 9, 4096, 4096}};         // one long group

class int4_tiles : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    if (tiles_set() == nullptr) GTEST_SKIP() << "this processor has no AVX512-VNNI";
  }
};

TEST_P(int4_tiles, match_the_reference) {
  for (const layer_shape& shape : shapes) {
    for (const std::int64_t m : {1, 2, 3, 4, 5, 7, 16, 33, 65}) {
      SCOPED_TRACE("out " + std::to_string(shape.out) + " in " + std::to_string(shape.in) +
                   " group " + std::to_string(shape.group_size) + " m " + std::to_string(m));
      expect_matches(shape, m, GetParam());
    }
  }
}

// One column of x 10^6 times the rest, and a row of values near fp32's smallest normal: the
// limbs follow the group's largest |x| (a power of two apart from it) whatever its size.
TEST_P(int4_tiles, outliers_and_tiny_activations) {
  const layer_shape shape{weight_format::int4, 40, 256, 128};
  std::vector<float> x = random_floats(static_cast<std::size_t>(2 * shape.in), 41);
  x[77] = 1.0e6F;
  for (std::int64_t k = 0; k < shape.in; ++k) x[static_cast<std::size_t>(shape.in + k)] *= 1e-37F;
  expect_matches(shape, 2, GetParam(), x);
}

INSTANTIATE_TEST_SUITE_P(activations, int4_tiles, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& param) {
                           return param.param ? "int8" : "exact";
                         });

// The backend packs what it can read (layers and expert stacks; an expert's slice of the
// stack is that expert) and keeps the host layout otherwise.
TEST(int4_tiles_upload, layers_and_expert_stacks_compute_as_their_host_layers) {
  if (tiles_set() == nullptr || &cpu::simd::active_kernels() != tiles_set()) {
    GTEST_SKIP() << "the active kernel set does not read int4 tiles";
  }
  const auto be = make_cpu_backend();
  std::vector<buffer> storage;
  host_layer odd = random_layer({weight_format::int4, 16, 100, 50}, 3);  // 8 does not divide in
  const std::optional<quantized_weight> kept = be->upload_quantized(odd.view(), storage);
  ASSERT_TRUE(kept.has_value());
  EXPECT_EQ(kept->packing, 0);

  constexpr std::int64_t experts = 3;
  const layer_shape shape{weight_format::int4, 40, 256, 64, 1, true};
  std::vector<host_layer> layers;
  host_layer stack = empty_layer(shape);
  for (std::int64_t e = 0; e < experts; ++e) {
    layers.push_back(random_layer(shape, static_cast<std::uint32_t>(100 + e)));
    const host_layer& one = layers.back();
    stack.codes.insert(stack.codes.end(), one.codes.begin(), one.codes.end());
    stack.scales.insert(stack.scales.end(), one.scales.begin(), one.scales.end());
    stack.zeros.insert(stack.zeros.end(), one.zeros.begin(), one.zeros.end());
    stack.order.insert(stack.order.end(), one.order.begin(), one.order.end());
  }
  expert_weights host;
  host.num_experts = experts;
  host.quantized = layers[0].view();
  host.quantized.codes = tensor::make(stack.codes.data(), dtype::u8, {experts, 40, 128});
  host.quantized.scales = tensor::make(stack.scales.data(), dtype::f32, {experts, 40, 4});
  host.quantized.zeros = tensor::make(stack.zeros.data(), dtype::u8, {experts, 40, 4});
  host.quantized.input_order = tensor::make(stack.order.data(), dtype::i32, {experts, 256});
  const std::optional<expert_weights> packed = be->upload_quantized_experts(host, storage);
  ASSERT_TRUE(packed.has_value());
  EXPECT_EQ(packed->quantized.packing, cpu::int4_tiles_packing);
  const std::vector<float> x = random_floats(static_cast<std::size_t>(3 * shape.in), 51);
  for (std::int64_t e = 0; e < experts; ++e) {
    std::vector<float> got(static_cast<std::size_t>(3 * shape.out));
    linear_params p;
    p.x = tensor::make(const_cast<float*>(x.data()), dtype::f32, {3, shape.in});
    p.out = tensor::make(got.data(), dtype::f32, {3, shape.out});
    p.quantized = packed->quantized_expert(e);
    be->linear(p);
    SCOPED_TRACE("expert " + std::to_string(e));
    expect_near_reference(layers[static_cast<std::size_t>(e)], x,
                          std::vector<double>(x.begin(), x.end()), got, 3);
  }
}

// Tiles are read only by a set that has their kernels; a malformed tile buffer is refused.
TEST(int4_tiles_refusals, other_sets_and_short_buffers_abort) {
  if (tiles_set() == nullptr) GTEST_SKIP() << "this processor has no AVX512-VNNI";
  tiled_layer l{random_layer({weight_format::int4, 16, 64, 32}, 9), {}};
  quantized_weight w = l.view();
  const std::vector<float> x = random_floats(64, 1);
  const cpu::simd::kernel_set* avx512 = cpu::simd::kernels_named("avx512");
  if (avx512 != nullptr) {
    EXPECT_DEATH(run(w, x, 1, *avx512, false), "int4 tiles");
  }
  w.codes.shape[0] -= 64;
  EXPECT_DEATH(run(w, x, 1, *tiles_set(), false), "codes.numel");
}

}  // namespace
}  // namespace pagedserve::kernels::testing
