// linear (cuBLAS) on the CUDA backend against the CPU reference (kernels/cpu/simd): x @ W^T with
// and without bias, and the logits case (compute-type inputs, f32 output).

#include <cstdint>
#include <string>

#include "tests/kernels/cuda/cuda_test_support.h"

namespace pagedserve::kernels::testing {
namespace {

using cuda_linear = cuda_vs_cpu;

struct linear_shape {
  std::int64_t rows;
  std::int64_t in;
  std::int64_t out;
  bool bias;
  bool f32_out;
};

TEST_P(cuda_linear, MatchesTheReferenceOverShapes) {
  const linear_shape shapes[] = {
      {1, 2048, 512, false, false},   {7, 256, 1000, true, false},  {64, 1024, 2048, true, false},
      {256, 2048, 512, false, false}, {5, 512, 32000, false, true}, {3, 896, 128, true, true},
  };
  std::uint32_t seed = 100;
  for (const linear_shape& s : shapes) {
    const std::string what = "rows " + std::to_string(s.rows) + " in " + std::to_string(s.in) +
                             " out " + std::to_string(s.out) + (s.bias ? " bias" : "") +
                             (s.f32_out ? " f32 out" : "");
    const auto x = random(static_cast<std::size_t>(s.rows * s.in), seed++);
    const auto w = random(static_cast<std::size_t>(s.out * s.in), seed++, 0.05F);
    const auto b = random(static_cast<std::size_t>(s.out), seed++);
    buffer x_gpu = upload(*gpu_, x, {s.rows, s.in});
    buffer x_cpu = upload(*cpu_, x, {s.rows, s.in});
    buffer w_gpu = upload(*gpu_, w, {s.out, s.in});
    buffer w_cpu = upload(*cpu_, w, {s.out, s.in});
    buffer b_gpu = upload(*gpu_, b, {s.out});
    buffer b_cpu = upload(*cpu_, b, {s.out});
    buffer out_gpu = gpu_->allocate(s.f32_out ? dtype::f32 : type(), {s.rows, s.out});
    buffer out_cpu = cpu_->allocate(dtype::f32, {s.rows, s.out});
    const tensor bias_gpu = s.bias ? b_gpu.view() : tensor{};
    const tensor bias_cpu = s.bias ? b_cpu.view() : tensor{};
    gpu_->linear({out_gpu.view(), x_gpu.view(), w_gpu.view(), bias_gpu});
    cpu_->linear({out_cpu.view(), x_cpu.view(), w_cpu.view(), bias_cpu});
    expect_close(out_gpu.view(), out_cpu.view(), "linear " + what);
  }
}

INSTANTIATE_TEST_SUITE_P(compute_types, cuda_linear, all_compute_types, dtype_name);

}  // namespace
}  // namespace pagedserve::kernels::testing
