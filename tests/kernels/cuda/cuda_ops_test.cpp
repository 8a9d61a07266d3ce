// Row and element-wise ops on the CUDA backend against the CPU reference, on the same random
// inputs, for f32 and bf16 compute.

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "tests/kernels/cuda/cuda_test_support.h"

namespace pagedserve::kernels::testing {
namespace {

using cuda_ops = cuda_vs_cpu;

std::vector<std::int32_t> random_indices(std::int64_t n, std::int64_t bound, std::uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<std::int32_t> dist(0, static_cast<std::int32_t>(bound - 1));
  std::vector<std::int32_t> v(static_cast<std::size_t>(n));
  for (auto& x : v) x = dist(gen);
  return v;
}

TEST_P(cuda_ops, EmbeddingAndGatherRowsCopyTheIndexedRows) {
  const std::int64_t vocab = 1000;
  for (std::int64_t hidden : {64, 2048}) {
    for (std::int64_t n : {1, 37, 256}) {
      const auto table = random(static_cast<std::size_t>(vocab * hidden), 1);
      const auto ids = random_indices(n, vocab, 2);
      const std::string what = "hidden " + std::to_string(hidden) + " n " + std::to_string(n);
      buffer out_gpu = gpu_->allocate(type(), {n, hidden});
      buffer out_cpu = cpu_->allocate(dtype::f32, {n, hidden});
      buffer table_gpu = upload(*gpu_, table, {vocab, hidden});
      buffer table_cpu = upload(*cpu_, table, {vocab, hidden});
      buffer ids_gpu = upload_i32(*gpu_, ids, {n});
      buffer ids_cpu = upload_i32(*cpu_, ids, {n});
      gpu_->embedding({out_gpu.view(), table_gpu.view(), ids_gpu.view()});
      cpu_->embedding({out_cpu.view(), table_cpu.view(), ids_cpu.view()});
      expect_close(out_gpu.view(), out_cpu.view(), "embedding " + what);
      gpu_->gather_rows({out_gpu.view(), table_gpu.view(), ids_gpu.view()});
      cpu_->gather_rows({out_cpu.view(), table_cpu.view(), ids_cpu.view()});
      expect_close(out_gpu.view(), out_cpu.view(), "gather_rows " + what);
    }
  }
}

TEST_P(cuda_ops, RmsNormMatchesTheReferenceOverRowWidths) {
  for (std::int64_t width : {64, 128, 2048, 4096}) {
    for (std::int64_t rows : {1, 7, 256}) {
      const auto x = random(static_cast<std::size_t>(rows * width), 3, 3.0F);
      const auto weight = random(static_cast<std::size_t>(width), 4);
      buffer x_gpu = upload(*gpu_, x, {rows, width});
      buffer x_cpu = upload(*cpu_, x, {rows, width});
      buffer w_gpu = upload(*gpu_, weight, {width});
      buffer w_cpu = upload(*cpu_, weight, {width});
      buffer out_gpu = gpu_->allocate(type(), {rows, width});
      buffer out_cpu = cpu_->allocate(dtype::f32, {rows, width});
      gpu_->rms_norm({out_gpu.view(), x_gpu.view(), w_gpu.view(), 1e-5F});
      cpu_->rms_norm({out_cpu.view(), x_cpu.view(), w_cpu.view(), 1e-5F});
      const std::string what = "width " + std::to_string(width) + " rows " + std::to_string(rows);
      expect_close(out_gpu.view(), out_cpu.view(), "rms_norm " + what);
      // In place, as the per-head q/k norm runs.
      gpu_->rms_norm({x_gpu.view(), x_gpu.view(), w_gpu.view(), 1e-5F});
      expect_close(x_gpu.view(), out_cpu.view(), "rms_norm in place " + what);
    }
  }
}

TEST_P(cuda_ops, AddRmsNormUpdatesTheResidualAndNormalisesIt) {
  for (std::int64_t width : {64, 2048}) {
    for (std::int64_t rows : {1, 33, 256}) {
      const auto residual = random(static_cast<std::size_t>(rows * width), 5, 2.0F);
      const auto x = random(static_cast<std::size_t>(rows * width), 6);
      const auto weight = random(static_cast<std::size_t>(width), 7);
      buffer res_gpu = upload(*gpu_, residual, {rows, width});
      buffer res_cpu = upload(*cpu_, residual, {rows, width});
      buffer x_gpu = upload(*gpu_, x, {rows, width});
      buffer x_cpu = upload(*cpu_, x, {rows, width});
      buffer w_gpu = upload(*gpu_, weight, {width});
      buffer w_cpu = upload(*cpu_, weight, {width});
      buffer out_gpu = gpu_->allocate(type(), {rows, width});
      buffer out_cpu = cpu_->allocate(dtype::f32, {rows, width});
      gpu_->add_rms_norm({res_gpu.view(), x_gpu.view(), out_gpu.view(), w_gpu.view(), 1e-6F});
      cpu_->add_rms_norm({res_cpu.view(), x_cpu.view(), out_cpu.view(), w_cpu.view(), 1e-6F});
      const std::string what = "width " + std::to_string(width) + " rows " + std::to_string(rows);
      expect_close(res_gpu.view(), res_cpu.view(), "add_rms_norm residual " + what);
      expect_close(out_gpu.view(), out_cpu.view(), "add_rms_norm out " + what);
    }
  }
}

TEST_P(cuda_ops, RopeRotatesEveryHeadByItsPosition) {
  for (std::int64_t head_dim : {64, 128}) {
    for (std::int64_t heads : {8, 32}) {
      for (std::int64_t n : {1, 33, 256}) {
        std::vector<float> inv_freq(static_cast<std::size_t>(head_dim / 2));
        for (std::size_t i = 0; i < inv_freq.size(); ++i) {
          inv_freq[i] = static_cast<float>(
              std::pow(500000.0, -2.0 * static_cast<double>(i) / static_cast<double>(head_dim)));
        }
        const auto positions = random_indices(n, 4096, 8);
        const auto x = random(static_cast<std::size_t>(n * heads * head_dim), 9);
        buffer x_gpu = upload(*gpu_, x, {n, heads, head_dim});
        buffer x_cpu = upload(*cpu_, x, {n, heads, head_dim});
        buffer pos_gpu = upload_i32(*gpu_, positions, {n});
        buffer pos_cpu = upload_i32(*cpu_, positions, {n});
        buffer freq_gpu = gpu_->allocate(dtype::f32, {head_dim / 2});
        gpu_->upload_f32(freq_gpu.view(), inv_freq);
        buffer freq_cpu = upload(*cpu_, inv_freq, {head_dim / 2});
        gpu_->rope({x_gpu.view(), pos_gpu.view(), freq_gpu.view()});
        cpu_->rope({x_cpu.view(), pos_cpu.view(), freq_cpu.view()});
        expect_close(x_gpu.view(), x_cpu.view(),
                     "rope head_dim " + std::to_string(head_dim) + " heads " +
                         std::to_string(heads) + " n " + std::to_string(n));
      }
    }
  }
}

TEST_P(cuda_ops, SiluMulAndAddAreElementWise) {
  for (std::int64_t n : {1, 1000, 256 * 8192}) {
    const auto a = random(static_cast<std::size_t>(n), 10, 6.0F);
    const auto b = random(static_cast<std::size_t>(n), 11, 2.0F);
    buffer a_gpu = upload(*gpu_, a, {n});
    buffer a_cpu = upload(*cpu_, a, {n});
    buffer b_gpu = upload(*gpu_, b, {n});
    buffer b_cpu = upload(*cpu_, b, {n});
    buffer out_gpu = gpu_->allocate(type(), {n});
    buffer out_cpu = cpu_->allocate(dtype::f32, {n});
    gpu_->silu_mul({out_gpu.view(), a_gpu.view(), b_gpu.view()});
    cpu_->silu_mul({out_cpu.view(), a_cpu.view(), b_cpu.view()});
    expect_close(out_gpu.view(), out_cpu.view(), "silu_mul n " + std::to_string(n));
    gpu_->add({a_gpu.view(), a_gpu.view(), b_gpu.view()});
    cpu_->add({a_cpu.view(), a_cpu.view(), b_cpu.view()});
    expect_close(a_gpu.view(), a_cpu.view(), "add in place n " + std::to_string(n));
  }
}

INSTANTIATE_TEST_SUITE_P(compute_types, cuda_ops, all_compute_types, dtype_name);

}  // namespace
}  // namespace pagedserve::kernels::testing
