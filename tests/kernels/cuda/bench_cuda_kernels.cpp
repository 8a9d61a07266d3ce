// bench_cuda_kernels: decode paged attention on the GPU, Llama-3.2-1B head layout (32 query
// heads, 8 KV heads, head_dim 64), bf16 KV cache with 16-token blocks in a shuffled order.
// Inputs are random (never zeros). Each shape: 10 warm-up runs, then 100 runs timed one by
// one with CUDA events; prints the median and the achieved bandwidth against the 4,270 GB/s
// device-to-device copy ceiling measured on the H200 (shared/device/RUNBOOK.md).

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/cuda_ops.cuh"
#include "kernels/cuda/device_info.h"

namespace pagedserve::kernels::cuda {
namespace {

constexpr int num_heads = 32;
constexpr int num_kv_heads = 8;
constexpr int head_dim = 64;
constexpr int block_size = 16;
constexpr int warmup_runs = 10;
constexpr int timed_runs = 100;
constexpr double ceiling_gb_per_s = 4270.0;

// Device memory freed when the bench ends.
class device_arena {
 public:
  device_arena() = default;
  device_arena(const device_arena&) = delete;
  device_arena& operator=(const device_arena&) = delete;
  ~device_arena() {
    for (void* p : blocks_) CUDA_CHECK(cudaFree(p));
  }
  tensor make(dtype type, std::initializer_list<std::int64_t> shape) {
    tensor t = tensor::make(nullptr, type, shape);
    CUDA_CHECK(cudaMalloc(&t.data, t.num_bytes() == 0 ? 256 : t.num_bytes()));
    blocks_.push_back(t.data);
    return t;
  }

 private:
  std::vector<void*> blocks_;
};

void upload(const tensor& dst, const std::vector<std::int32_t>& host) {
  CUDA_CHECK(cudaMemcpy(dst.data, host.data(), dst.num_bytes(), cudaMemcpyHostToDevice));
}

struct decode_result {
  double median_us = 0.0;
  double gb_per_s = 0.0;
};

decode_result bench_decode(int batch, int context, cudaStream_t stream) {
  device_arena arena;
  const int blocks_per_seq = (context + block_size - 1) / block_size;
  const std::int64_t num_blocks = std::int64_t{batch} * blocks_per_seq;
  paged_attention_params p;
  p.key_cache = arena.make(dtype::bf16, {num_blocks, block_size, num_kv_heads, head_dim});
  p.value_cache = arena.make(dtype::bf16, {num_blocks, block_size, num_kv_heads, head_dim});
  p.query = arena.make(dtype::bf16, {batch, num_heads, head_dim});
  p.out = arena.make(dtype::bf16, {batch, num_heads, head_dim});
  fill_uniform(p.key_cache, 1, 1.0F, stream);
  fill_uniform(p.value_cache, 2, 1.0F, stream);
  fill_uniform(p.query, 3, 2.0F, stream);

  std::vector<std::int32_t> blocks(static_cast<std::size_t>(num_blocks));
  std::iota(blocks.begin(), blocks.end(), 0);
  std::shuffle(blocks.begin(), blocks.end(), std::mt19937(7));
  std::vector<std::int32_t> query_start(static_cast<std::size_t>(batch) + 1);
  std::iota(query_start.begin(), query_start.end(), 0);
  p.block_tables = arena.make(dtype::i32, {batch, blocks_per_seq});
  p.query_start = arena.make(dtype::i32, {batch + 1});
  p.context_lens = arena.make(dtype::i32, {batch});
  upload(p.block_tables, blocks);
  upload(p.query_start, query_start);
  upload(p.context_lens, std::vector<std::int32_t>(static_cast<std::size_t>(batch), context));
  p.scale = 0.125F;
  p.max_context_len = context;
  const std::size_t workspace_floats = paged_attention_workspace_floats(p);
  float* workspace = nullptr;
  if (workspace_floats != 0) {
    workspace = arena.make(dtype::f32, {static_cast<std::int64_t>(workspace_floats)}).as<float>();
  }

  for (int i = 0; i < warmup_runs; ++i) paged_attention(p, workspace, stream);
  cudaEvent_t start = nullptr;
  cudaEvent_t stop = nullptr;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  std::vector<float> times_ms;
  for (int i = 0; i < timed_runs; ++i) {
    CUDA_CHECK(cudaEventRecord(start, stream));
    paged_attention(p, workspace, stream);
    CUDA_CHECK(cudaEventRecord(stop, stream));
    CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0.0F;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    times_ms.push_back(ms);
  }
  CUDA_CHECK(cudaEventDestroy(start));
  CUDA_CHECK(cudaEventDestroy(stop));
  std::sort(times_ms.begin(), times_ms.end());
  const double median_s = times_ms[times_ms.size() / 2] * 1e-3;
  // Bytes that must move: every key and value row of every context once, plus queries,
  // outputs, block tables and lengths. Split-K partials stay mostly in L2 and are not counted.
  const double kv_bytes = 2.0 * batch * context * num_kv_heads * head_dim * 2.0;
  const double other_bytes =
      2.0 * batch * num_heads * head_dim * 2.0 + 4.0 * (batch * blocks_per_seq + 2.0 * batch + 1.0);
  return {median_s * 1e6, (kv_bytes + other_bytes) / median_s / 1e9};
}

int run() {
  std::string why;
  const auto info = query_device(&why);
  if (!info) {
    std::printf("bench_cuda_kernels: no CUDA device: %s\n", why.c_str());
    return 0;
  }
  std::printf("device: %s sm_%d%d, %d SMs\n", info->name.c_str(), info->compute_major,
              info->compute_minor, info->num_sms);
  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  std::printf("%-44s %12s %10s %10s\n", "kernel", "median_us", "GB/s", "of_peak");
  const std::pair<int, int> shapes[] = {{256, 1024}, {64, 4096}};
  for (auto [batch, context] : shapes) {
    const decode_result r = bench_decode(batch, context, stream);
    const std::string name = "paged_attention decode bf16 b" + std::to_string(batch) + " ctx" +
                             std::to_string(context) + " 32q/8kv/d64";
    std::printf("%-44s %12.1f %10.1f %9.1f%%\n", name.c_str(), r.median_us, r.gb_per_s,
                100.0 * r.gb_per_s / ceiling_gb_per_s);
  }
  CUDA_CHECK(cudaStreamDestroy(stream));
  return 0;
}

}  // namespace
}  // namespace pagedserve::kernels::cuda

int main() { return pagedserve::kernels::cuda::run(); }
