// linear over quantized weights on the CUDA backend (kernels/cuda/quantized_linear.h): the
// mixed-input GEMM (W4A16 / W8A16, dequantized in registers on the tensor cores), the
// dequantize + cuBLAS route and FP8 W8A8, each against the CPU backend's quantized kernels
// over the same host layer (AWQ-like int4 with zero points, GPTQ act-order, per-channel
// groups, int8, FP8 block / channel / tensor scales) and, for W8A8, against vLLM's per-token
// formula worked out here with the CPU's e4m3 codec.

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/fp8_e4m3.h"
#include "tests/kernels/cpu/quantized_layer_support.h"
#include "tests/kernels/cuda/cuda_test_support.h"

namespace pagedserve::kernels::testing {
namespace {

// The routes compute in 16-bit types (the tensor cores'); fp32 compute dequantizes at load.
using cuda_quantized_linear = cuda_vs_cpu;
using cuda_quantized_layers = cuda_vs_cpu;

std::string format_name(weight_format f) {
  switch (f) {
    case weight_format::int4:
      return "int4";
    case weight_format::int8:
      return "int8";
    case weight_format::fp8_e4m3:
      return "fp8";
    case weight_format::dense:
      break;
  }
  return "dense";
}

std::string describe(const layer_shape& s) {
  return format_name(s.format) + " " + std::to_string(s.out) + "x" + std::to_string(s.in) +
         " group " + std::to_string(s.group_size) + " block_rows " + std::to_string(s.block_rows) +
         (s.act_order ? " act-order" : "");
}

// A layer of the sweep; fp8_activations: from a W8A8 checkpoint (x quantized per token
// where the backend computes in fp8), else weight-only.
struct test_layer {
  layer_shape shape;
  bool fp8_activations = false;
};

// Layers both sizes of tiles see: inputs over one tile and a part of another (160), rows
// that do not fill a tile of 8 (20), a last group shorter than the others (160 / 128); FP8
// per channel as W8A8, per tensor as weight-only.
const test_layer layers[] = {
    {{weight_format::int4, 20, 160, 32}},
    {{weight_format::int4, 48, 128, 64, 1, true}},
    {{weight_format::int4, 24, 160, 160}},
    {{weight_format::int8, 40, 96, 32}},
    {{weight_format::fp8_e4m3, 48, 160, 128, 128}},
    {{weight_format::fp8_e4m3, 32, 64, 64}, true},
    {{weight_format::fp8_e4m3, 16, 96, 96, 16}},
    {{weight_format::int4, 72, 1024, 128, 1, true}},
    {{weight_format::fp8_e4m3, 64, 512, 128, 128}},
    // More tiles than a block's warps load in one batch (16): the double-buffered loads.
    {{weight_format::int4, 16, 2560, 128}},
    {{weight_format::int8, 24, 1536, 64}},
};

struct uploaded {
  std::vector<buffer> storage;
  quantized_weight weight;
};

uploaded upload_layer(backend& be, host_layer& layer, bool fp8_activations = false) {
  uploaded u;
  quantized_weight host = layer.view();
  host.fp8_activations = fp8_activations;
  auto w = be.upload_quantized(host, u.storage);
  EXPECT_TRUE(w.has_value()) << be.name();
  if (w) u.weight = *w;
  return u;
}

// out = sum_k (e4m3(x / sx) sx) w with vLLM's dynamic per-token scale
// sx = max(max|x| / 448, 1 / (448 * 512)), in double, W from the layer's contract.
std::vector<float> w8a8_reference(const std::vector<float>& x, std::int64_t m,
                                  const host_layer& layer) {
  const std::vector<double> w = reference_weight(layer);
  std::vector<float> out(static_cast<std::size_t>(m * layer.out));
  std::vector<double> xq(static_cast<std::size_t>(layer.in));
  for (std::int64_t r = 0; r < m; ++r) {
    float largest = 0.0F;
    for (std::int64_t k = 0; k < layer.in; ++k) {
      largest = std::max(largest, std::abs(x[static_cast<std::size_t>(r * layer.in + k)]));
    }
    const float scale = std::max(largest / 448.0F, 1.0F / (448.0F * 512.0F));
    const float inverse = 1.0F / scale;
    for (std::int64_t k = 0; k < layer.in; ++k) {
      const float v = x[static_cast<std::size_t>(r * layer.in + k)] * inverse;
      xq[static_cast<std::size_t>(k)] = static_cast<double>(e4m3_to_f32(f32_to_e4m3(v))) * scale;
    }
    for (std::int64_t n = 0; n < layer.out; ++n) {
      double sum = 0.0;
      for (std::int64_t k = 0; k < layer.in; ++k) {
        sum += xq[static_cast<std::size_t>(k)] * w[static_cast<std::size_t>(n * layer.in + k)];
      }
      out[static_cast<std::size_t>(r * layer.out + n)] = static_cast<float>(sum);
    }
  }
  return out;
}

TEST_P(cuda_quantized_linear, EveryRouteMatchesTheCpuKernels) {
  const std::vector<std::int64_t> rows =
      sweep<std::int64_t>({1, 7, 16, 33, 64, 65, 300}, {1, 7, 17, 40, 70});
  std::uint32_t seed = 700;
  for (const test_layer& tested : layers) {
    const layer_shape& shape = tested.shape;
    host_layer layer = random_layer(shape, seed++);
    uploaded on_gpu = upload_layer(*gpu_, layer, tested.fp8_activations);
    uploaded on_cpu = upload_layer(*cpu_, layer, tested.fp8_activations);
    ASSERT_FALSE(on_gpu.storage.empty());
    for (const std::int64_t m : rows) {
      const auto x = random(static_cast<std::size_t>(m * shape.in), seed++);
      const auto b = random(static_cast<std::size_t>(shape.out), seed++);
      buffer x_gpu = upload(*gpu_, x, {m, shape.in});
      buffer x_cpu = upload(*cpu_, x, {m, shape.in});
      buffer b_gpu = upload(*gpu_, b, {shape.out});
      buffer b_cpu = upload(*cpu_, b, {shape.out});
      buffer out_cpu = cpu_->allocate(dtype::f32, {m, shape.out});
      cpu_->linear({out_cpu.view(), x_cpu.view(), {}, b_cpu.view(), on_cpu.weight});
      const std::string what =
          describe(shape) + (tested.fp8_activations ? " w8a8" : "") + " rows " + std::to_string(m);
      // The backend's own choice: past 16 rows, a W8A8 layer quantizes x per token (so the
      // formula is the reference); the rest, FP8 weight-only included, keeps x as it is.
      buffer out_gpu = gpu_->allocate(type(), {m, shape.out});
      gpu_->linear({out_gpu.view(), x_gpu.view(), {}, b_gpu.view(), on_gpu.weight});
      if (tested.fp8_activations && m > 16) {
        std::vector<float> want = w8a8_reference(x, m, layer);
        for (std::size_t i = 0; i < want.size(); ++i) want[i] += b[i % b.size()];
        EXPECT_LE(max_rel_error(download(*gpu_, out_gpu.view()), want), tolerance())
            << what << " (routed: W8A8)";
      } else {
        expect_close(out_gpu.view(), out_cpu.view(), what + " (routed)");
      }
      // The two routes that keep x as it is, whatever m.
      for (const auto route :
           {quantized_linear_route::mixed_gemm, quantized_linear_route::dequantize_gemm}) {
        buffer routed = gpu_->allocate(dtype::f32, {m, shape.out});
        linear_through(*gpu_, route,
                       {routed.view(), x_gpu.view(), {}, b_gpu.view(), on_gpu.weight});
        expect_close(routed.view(), out_cpu.view(),
                     what + " route " + std::to_string(static_cast<int>(route)));
      }
    }
  }
}

TEST_P(cuda_quantized_linear, Fp8W8A8FollowsThePerTokenFormula) {
  std::uint32_t seed = 900;
  for (const layer_shape& shape : {layer_shape{weight_format::fp8_e4m3, 32, 64, 64},
                                   layer_shape{weight_format::fp8_e4m3, 48, 96, 96, 48}}) {
    host_layer layer = random_layer(shape, seed++);
    uploaded on_gpu = upload_layer(*gpu_, layer, true);
    for (const std::int64_t m : {std::int64_t{3}, std::int64_t{20}}) {
      const auto x = random(static_cast<std::size_t>(m * shape.in), seed++);
      buffer x_gpu = upload(*gpu_, x, {m, shape.in});
      buffer out = gpu_->allocate(dtype::f32, {m, shape.out});
      linear_through(*gpu_, quantized_linear_route::fp8_w8a8,
                     {out.view(), x_gpu.view(), {}, {}, on_gpu.weight});
      const double err = max_rel_error(download(*gpu_, out.view()), w8a8_reference(x, m, layer));
      EXPECT_LE(err, 1e-4) << describe(shape) << " rows " << m;
    }
  }
}

TEST_P(cuda_quantized_layers, LayersTheKernelCannotReadAreLeftToTheLoader) {
  std::vector<buffer> storage;
  host_layer odd_groups = random_layer({weight_format::int4, 16, 96, 48}, 1);
  host_layer odd_inputs = random_layer({weight_format::int8, 16, 48, 16}, 2);
  EXPECT_FALSE(gpu_->upload_quantized(odd_groups.view(), storage).has_value());
  EXPECT_FALSE(gpu_->upload_quantized(odd_inputs.view(), storage).has_value());
  EXPECT_TRUE(storage.empty());  // nothing allocated for a refused layer
  host_layer readable = random_layer({weight_format::int4, 16, 64, 32}, 3);
  EXPECT_EQ(gpu_->upload_quantized(readable.view(), storage).has_value(), type() != dtype::f32);
  EXPECT_EQ(gpu_->computes_with(weight_format::int4), type() != dtype::f32);
}

INSTANTIATE_TEST_SUITE_P(compute_types, cuda_quantized_linear,
                         ::testing::Values(dtype::bf16, dtype::f16), dtype_name);
INSTANTIATE_TEST_SUITE_P(compute_types, cuda_quantized_layers, all_compute_types, dtype_name);

}  // namespace
}  // namespace pagedserve::kernels::testing
