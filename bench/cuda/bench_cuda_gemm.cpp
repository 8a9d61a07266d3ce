// bench_cuda_gemm: the bf16 GEMMs of a decode and a prefill step (cuBLAS through the CUDA
// backend's linear) over the batch sizes the quantized kernels are judged at: M = 1, 16, 64,
// 256 and 4096 rows, on the projection shapes of Llama-3.2-1B and Llama-3-8B. Each line
// gives the time, the TFLOP/s, the weight bytes per second and the share of the roofline: the
// time it would take at the larger of (bytes read and written) / 4.27 TB/s and
// FLOPs / 789 TFLOP/s (the H200's measured ceilings, docs/design/gpu-runbook.md). These are the
// baseline of the W4A16 and FP8 goals (W4A16 decode at M <= 16: >= 3x this time; FP8 at
// M >= 1024: >= 1.3x). Beside each, the FP8 W8A8 matmul of the same shape: the activations
// quantized per token (quantize_rows_e4m3) and cuBLASLt's FP8 GEMM with per-token and
// per-channel scales (gemm_e4m3), timed together, and its speed-up over bf16. Random inputs on the
// device; the median of many CUDA-event timings after warm-ups. On the SIMT emulator the shapes
// shrink and the times mean nothing.
//
//   bench_cuda_gemm [--runs N]

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench/cuda/bench_support.h"
#include "kernels/cuda/device_info.h"

namespace pagedserve::bench {
namespace {

using kernels::backend;
using kernels::buffer;
using kernels::dtype;

void measure(backend& cuda, const projection& p, int rows, int runs) {
  buffer x = cuda.allocate(dtype::bf16, {rows, p.in_features});
  buffer w = cuda.allocate(dtype::bf16, {p.out_features, p.in_features});
  buffer out = cuda.allocate(dtype::bf16, {rows, p.out_features});
  kernels::fill_uniform(cuda, x.view(), 11, 1.0F);
  kernels::fill_uniform(cuda, w.view(), 12, 0.05F);
  const double seconds = median_seconds(cuda, 3, runs, [&] {
    cuda.linear({out.view(), x.view(), w.view(), {}});
  });
  buffer x_codes = cuda.allocate(dtype::u8, {rows, p.in_features});
  buffer x_scales = cuda.allocate(dtype::f32, {rows});
  buffer w_codes = cuda.allocate(dtype::u8, {p.out_features, p.in_features});
  buffer w_scales = cuda.allocate(dtype::f32, {p.out_features});
  kernels::quantize_rows_e4m3(cuda, w_codes.view(), w_scales.view(), w.view());
  const double fp8_seconds = median_seconds(cuda, 3, runs, [&] {
    kernels::quantize_rows_e4m3(cuda, x_codes.view(), x_scales.view(), x.view());
    kernels::gemm_e4m3(cuda, out.view(), x_codes.view(), w_codes.view(), x_scales.view(),
                       w_scales.view());
  });
  const double weight_bytes = 2.0 * p.out_features * p.in_features;
  const double bytes = weight_bytes + 2.0 * rows * (p.in_features + p.out_features);
  const double flops = 2.0 * rows * p.out_features * p.in_features;
  const double floor_seconds = std::max(bytes / h200_copy_bytes_per_s, flops / h200_bf16_flops);
  std::printf("gemm %-13s %-8s %5d %7dx%-6d %10.1f %8.1f %10.1f %8.1f%% %9.1f %8.1f %6.2fx\n",
              p.model, p.name, rows, p.out_features, p.in_features, seconds * 1e6,
              flops / seconds / 1e12, weight_bytes / seconds / 1e9, 100.0 * floor_seconds / seconds,
              fp8_seconds * 1e6, flops / fp8_seconds / 1e12, seconds / fp8_seconds);
}

int run(int runs) {
  bench_device device = open_bench_device("bench_cuda_gemm");
  if (!device.backend) return device.exit_code;
  backend& cuda = *device.backend;
  std::printf("gemm %-13s %-8s %5s %14s %10s %8s %10s %9s %9s %8s %7s\n", "model", "proj", "M",
              "N x K", "median_us", "TFLOP/s", "weight_GB/s", "of_roof", "fp8_us", "fp8_TF/s",
              "fp8_x");
  if (device.emulated) {
    measure(cuda, {"tiny", "qkv", 96, 64}, 4, 1);  // multiples of 16: the FP8 GEMM's rule
    return 0;
  }
  for (const projection& p : llama_projections) {
    for (int rows : {1, 16, 64, 256, 4096}) measure(cuda, p, rows, rows >= 4096 ? runs / 4 : runs);
  }
  return 0;
}

}  // namespace
}  // namespace pagedserve::bench

int main(int argc, char** argv) {
  return pagedserve::bench::run(pagedserve::bench::runs_flag(argc, argv, 4));
}
