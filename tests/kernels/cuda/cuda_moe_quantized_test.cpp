// fused_moe over quantized expert stacks on the CUDA backend (kernels/cuda/
// moe_expert_operand.cuh: int4, int8 and fp8 in the host layout, dequantized as the grouped
// GEMM stages them) against the CPU backend running each expert's quantized linear.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tests/kernels/cpu/quantized_layer_support.h"
#include "tests/kernels/cuda/cuda_test_support.h"

namespace pagedserve::kernels::testing {
namespace {

using cuda_moe_quantized = cuda_vs_cpu;

// E random layers of `shape` in one stack (moe_ops.h): each tensor holds the E experts'.
struct host_stack {
  std::vector<std::uint8_t> codes;
  std::vector<float> scales;
  std::vector<std::uint8_t> zeros;
  std::vector<std::int32_t> order;
  expert_weights weights;

  host_stack(const layer_shape& shape, std::int64_t experts, std::uint32_t seed) {
    host_layer layer;
    for (std::int64_t e = 0; e < experts; ++e) {
      layer = random_layer(shape, seed + static_cast<std::uint32_t>(e) * 7);
      codes.insert(codes.end(), layer.codes.begin(), layer.codes.end());
      scales.insert(scales.end(), layer.scales.begin(), layer.scales.end());
      zeros.insert(zeros.end(), layer.zeros.begin(), layer.zeros.end());
      order.insert(order.end(), layer.order.begin(), layer.order.end());
    }
    // Scales (random_layer: up to 0.1) rescaled so that |W| stays below 4: outputs of tens to
    // hundreds, within f16's range, and well above the error measure's floor of 1.
    const float largest = shape.format == weight_format::fp8_e4m3 ? 448.0F
                          : shape.format == weight_format::int8   ? 255.0F
                                                                  : 15.0F;
    const float shrink = 4.0F / (0.1F * largest);
    for (float& v : scales) v *= shrink;
    quantized_weight w = layer.view();  // one expert's shapes, given E of them below
    const auto stacked = [&](const tensor& one, void* data) {
      return one.empty() ? tensor{} : tensor::make(data, one.type, {experts, one.numel()});
    };
    w.codes = stacked(w.codes, codes.data());
    w.scales = stacked(w.scales, scales.data());
    w.zeros = stacked(w.zeros, zeros.data());
    w.input_order =
        order.empty() ? tensor{} : tensor::make(order.data(), dtype::i32, {experts, shape.in});
    weights = {experts, {}, w};
  }
};

TEST_P(cuda_moe_quantized, FusedMoeMatchesTheCpuOnQuantizedStacks) {
  const std::int64_t experts = 8;
  const std::int64_t k = 2;
  const std::int64_t hidden = 64;
  const std::int64_t inter = 48;
  struct format_case {
    weight_format format;
    std::int64_t group_size;
    std::int64_t block_rows;
  };
  const format_case formats[] = {{weight_format::int4, 32, 1},
                                 {weight_format::int8, 16, 1},
                                 {weight_format::fp8_e4m3, 32, 16}};
  std::uint32_t seed = 900;
  for (const format_case& f : formats) {
    const std::string what = "format " + std::to_string(static_cast<int>(f.format));
    host_stack gate({f.format, inter, hidden, f.group_size, f.block_rows}, experts, seed++);
    host_stack up({f.format, inter, hidden, f.group_size, f.block_rows}, experts, seed++);
    host_stack down({f.format, hidden, inter, f.group_size, f.block_rows}, experts, seed++);
    std::vector<buffer> storage;
    const auto gate_gpu = gpu_->upload_quantized_experts(gate.weights, storage);
    const auto up_gpu = gpu_->upload_quantized_experts(up.weights, storage);
    const auto down_gpu = gpu_->upload_quantized_experts(down.weights, storage);
    if (type() == dtype::f32) {  // fp32 compute dequantizes at load, to match the reference
      EXPECT_FALSE(gate_gpu.has_value()) << what;
      continue;
    }
    ASSERT_TRUE(gate_gpu && up_gpu && down_gpu) << what;
    for (const std::int64_t n : {1, 33}) {
      const auto x = random(static_cast<std::size_t>(n * hidden), seed++);
      std::vector<std::int32_t> ids;
      std::vector<float> w;
      for (std::int64_t t = 0; t < n; ++t) {
        for (std::int64_t j = 0; j < k; ++j) {
          ids.push_back(static_cast<std::int32_t>((t * 3 + j * 5) % experts));
          w.push_back(0.25F + 0.5F * static_cast<float>(j));
        }
      }
      tensor outs[2];
      std::vector<buffer> keep;
      int side = 0;
      for (backend* be : {gpu_.get(), cpu_.get()}) {
        const bool on_gpu = be == gpu_.get();
        keep.push_back(upload(*be, x, {n, hidden}));
        const tensor x_view = keep.back().view();
        keep.push_back(upload_i32(*be, ids, {n, k}));
        const tensor ids_view = keep.back().view();
        keep.push_back(be->allocate(dtype::f32, {n, k}));
        const tensor w_view = keep.back().view();
        be->copy_from_host(w_view, w.data());
        keep.push_back(be->allocate(on_gpu ? type() : dtype::f32, {n, hidden}));
        outs[side++] = keep.back().view();
        keep.push_back(be->allocate(
            dtype::u8, {be->fused_moe_scratch_bytes({n, k, experts, hidden, inter}) + 1}));
        be->fused_moe({outs[side - 1], x_view, ids_view, w_view, on_gpu ? *gate_gpu : gate.weights,
                       on_gpu ? *up_gpu : up.weights, on_gpu ? *down_gpu : down.weights,
                       keep.back().view()});
      }
      const auto want = download(*cpu_, outs[1]);
      float largest = 0.0F;
      for (float v : want) largest = std::max(largest, std::abs(v));
      EXPECT_GT(largest, 4.0F) << what << ": outputs too small to measure";
      expect_close(outs[0], outs[1], what + " n " + std::to_string(n));
    }
  }
}

// Act-order stacks are not read in place: the loader dequantizes them.
TEST_P(cuda_moe_quantized, ActOrderStacksAreLeftToTheLoader) {
  host_stack gate({weight_format::int4, 48, 64, 32, 1, true}, 4, 77);
  std::vector<buffer> storage;
  EXPECT_FALSE(gpu_->upload_quantized_experts(gate.weights, storage).has_value());
}

INSTANTIATE_TEST_SUITE_P(compute_types, cuda_moe_quantized, all_compute_types, dtype_name);

}  // namespace
}  // namespace pagedserve::kernels::testing
