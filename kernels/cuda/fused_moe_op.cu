// fused_moe on the CUDA backend (kernels/moe_ops.h), vLLM's fused_moe in four launches:
//   1. align (moe_align.cuh): routed rows sorted by expert, padded to blocks of moe_block_m
//   2. gate and up projections with silu * up fused, per block of one expert, into h (f32)
//   3. down projection of h into y (f32), per block of one expert
//   (2 and 3: on tensor cores for dense bf16 / f16 stacks, moe_expert_mma.cuh; the SIMT
//   kernel of moe_expert_gemm.cuh for f32 and quantized stacks)
//   4. combine: out[t] = sum_j topk_weights[t, j] * y[t * top_k + j], j in order (no float
//      atomics, so a call's results are the same bits every time)
// Every launch's geometry comes from tensor shapes alone (the grids cover the host-side bound
// of moe_layout.h; blocks past the device-side total exit), nothing is read back and nothing
// allocated: the ops capture into CUDA graphs. Experts are dense in the compute type, or
// int4 / int8 / fp8 stacks in the host layout (moe_expert_operand.cuh).

#include <cstddef>
#include <cstdint>

#include "kernels/check.h"
#include "kernels/cuda/cuda_ops.cuh"
#include "kernels/cuda/element.cuh"
#include "kernels/cuda/launch.cuh"
#include "kernels/cuda/moe_align.cuh"
#include "kernels/cuda/moe_expert_gemm.cuh"
#include "kernels/cuda/moe_expert_mma.cuh"
#include "kernels/cuda/moe_expert_operand.cuh"
#include "kernels/cuda/moe_layout.h"

namespace pagedserve::kernels::cuda {
namespace {

constexpr int combine_threads = 256;

// One block per token.
template <class T>
__global__ void moe_combine_kernel(T* out, const float* y, const float* weights, int top_k,
                                   int hidden) {
  const std::int64_t t = blockIdx.x;
  const float* w = weights + t * top_k;
  const float* rows = y + t * top_k * hidden;
  for (int c = static_cast<int>(threadIdx.x); c < hidden; c += combine_threads) {
    float sum = 0.0F;
    for (int j = 0; j < top_k; ++j) sum += w[j] * rows[static_cast<std::int64_t>(j) * hidden + c];
    out[t * hidden + c] = from_float<T>(sum);
  }
}

// One grouped GEMM: tensor cores where T is 16-bit and its weights are dense, else SIMT.
// Either kernel takes the same grid (gemm_bn columns by the blocks of sorted slots).
template <class TA, class T, bool gated>
void launch_expert_gemm(const expert_gemm_args<TA, T>& args, dim3 grid, cudaStream_t stream) {
  if constexpr (sizeof(T) == 2) {
    if (args.w0.dense != nullptr && (!gated || args.w1.dense != nullptr)) {
      launch_kernel(moe_expert_mma_kernel<TA, T, gated>, grid, dim3(mma_gemm_threads), 0, stream,
                    args);
      return;
    }
  }
  launch_kernel(moe_expert_gemm_kernel<TA, T, gated>, grid, dim3(gemm_threads), 0, stream, args);
}

template <class T>
void run(const fused_moe_params& p, int inter, const moe_scratch_layout& l, cudaStream_t stream) {
  const int n = static_cast<int>(p.x.dim(0));
  const int hidden = static_cast<int>(p.x.dim(1));
  const int top_k = static_cast<int>(p.topk_ids.dim(1));
  const int experts = static_cast<int>(p.gate.num_experts);
  const dtype type = p.x.type;
  auto* base = p.scratch.as<std::uint8_t>();
  auto* offsets = reinterpret_cast<std::int32_t*>(base + l.offsets);
  auto* sorted_rows = reinterpret_cast<std::int32_t*>(base + l.sorted_rows);
  auto* block_expert = reinterpret_cast<std::int32_t*>(base + l.block_expert);
  auto* h = reinterpret_cast<float*>(base + l.h);
  auto* y = reinterpret_cast<float*>(base + l.y);

  launch_kernel(moe_align_kernel, dim3(1), dim3(moe_align_threads),
                static_cast<std::size_t>(3 * experts + 1) * sizeof(int), stream,
                p.topk_ids.as<const std::int32_t>(), static_cast<int>(l.rows), experts,
                static_cast<int>(l.max_slots), static_cast<int>(l.max_blocks), offsets, sorted_rows,
                block_expert);
  const auto blocks_m = static_cast<unsigned int>(l.max_blocks);
  const auto tiles = [](int width) {
    return static_cast<unsigned int>((width + gemm_bn - 1) / gemm_bn);
  };
  const expert_gemm_args<T, T> gate_up{h,
                                       p.x.as<const T>(),
                                       expert_operand_of<T>(p.gate, type, experts, inter, hidden),
                                       expert_operand_of<T>(p.up, type, experts, inter, hidden),
                                       sorted_rows,
                                       block_expert,
                                       top_k,
                                       inter,
                                       hidden};
  launch_expert_gemm<T, T, true>(gate_up, dim3(tiles(inter), blocks_m), stream);
  const expert_gemm_args<float, T> down{
      y,  h,           expert_operand_of<T>(p.down, type, experts, hidden, inter),
      {}, sorted_rows, block_expert,
      1,  hidden,      inter};
  launch_expert_gemm<float, T, false>(down, dim3(tiles(hidden), blocks_m), stream);
  launch_kernel(moe_combine_kernel<T>, dim3(static_cast<unsigned int>(n)), dim3(combine_threads), 0,
                stream, p.out.as<T>(), static_cast<const float*>(y),
                p.topk_weights.as<const float>(), top_k, hidden);
}

}  // namespace

std::int64_t fused_moe_scratch_bytes(const fused_moe_shape& shape) {
  return moe_layout_of(shape).total;
}

bool fused_moe_reads(const quantized_weight& stack) { return moe_reads_quantized(stack); }

void fused_moe(const fused_moe_params& p, cudaStream_t stream) {
  const char* what = "fused_moe";
  const dtype type = p.x.type;
  KERNEL_CHECK(what, is_float_type(type) && p.out.type == type && p.x.rank == 2);
  KERNEL_CHECK(what, p.out.numel() == p.x.numel() && p.out.data != p.x.data);
  KERNEL_CHECK(what, p.topk_ids.type == dtype::i32 && p.topk_weights.type == dtype::f32);
  const std::int64_t n = p.x.dim(0);
  const std::int64_t hidden = p.x.dim(1);
  const std::int64_t k = p.topk_ids.rank == 2 ? p.topk_ids.dim(1) : 0;
  KERNEL_CHECK(what, p.topk_ids.rank == 2 && p.topk_ids.dim(0) == n && k >= 1);
  KERNEL_CHECK(what, p.topk_weights.numel() == n * k);
  const std::int64_t experts = p.gate.num_experts;
  KERNEL_CHECK(what, experts >= 1 && experts <= 4096);  // the align step's shared memory
  // The stacks' shapes are checked where they become operands (moe_expert_operand.cuh).
  const std::int64_t inter = p.gate.is_quantized()
                                 ? p.gate.quantized.out_features
                                 : (p.gate.dense.rank == 3 ? p.gate.dense.dim(1) : 0);
  KERNEL_CHECK(what, inter > 0);
  const moe_scratch_layout l = moe_layout_of({n, k, experts, hidden, inter});
  KERNEL_CHECK(what, static_cast<std::int64_t>(p.scratch.num_bytes()) >= l.total);
  KERNEL_CHECK(what, l.max_slots < (std::int64_t{1} << 31) && l.max_blocks <= 65535);
  if (n == 0) return;
  dispatch_float_type(what, type, [&](auto tag) {
    run<typename decltype(tag)::type>(p, static_cast<int>(inter), l, stream);
  });
}

}  // namespace pagedserve::kernels::cuda
