// moe_route: per token, the top_k experts of softmax(router_logits) (kernels/moe_ops.h).
// One warp per token, four tokens per block. Lane l owns experts l, l + 32, ... and keeps the
// ones already chosen in a register bitmask (so E <= 32 * 32). Each of the k rounds is a warp
// arg-max over the unchosen logits: the larger logit wins, equal logits go to the lower index,
// so the ids come out in descending order exactly as the CPU's partial sort gives them (the
// selection compares raw logits; only the weights go through exp). Softmax in fp32.

#include <cmath>
#include <cstdint>

#include "kernels/check.h"
#include "kernels/cuda/block_reduce.cuh"
#include "kernels/cuda/cuda_ops.cuh"
#include "kernels/cuda/launch.cuh"

namespace pagedserve::kernels::cuda {
namespace {

constexpr int route_warps = 4;
constexpr int max_route_experts = 32 * 32;

struct route_args {
  std::int32_t* ids;
  float* weights;
  const float* logits;
  std::int32_t* expert_load;  // null: not counted
  int n;
  int experts;
  int top_k;
  bool renormalize;
};

__global__ void moe_route_kernel(route_args a) {
  const int lane = static_cast<int>(threadIdx.x % 32);
  const int t = static_cast<int>(blockIdx.x) * route_warps + static_cast<int>(threadIdx.x / 32);
  if (t >= a.n) return;  // the whole warp: no collective below misses a lane
  const float* logits = a.logits + static_cast<std::int64_t>(t) * a.experts;
  float max = -INFINITY;
  for (int e = lane; e < a.experts; e += 32) max = fmaxf(max, logits[e]);
  max = warp_reduce(max, max_op{});
  float sum = 0.0F;
  for (int e = lane; e < a.experts; e += 32) sum += expf(logits[e] - max);
  sum = warp_reduce(sum, sum_op{});

  std::uint32_t taken = 0;  // bit i: expert lane + 32 i chosen in an earlier round
  float kept = 0.0F;        // lane 0: the chosen weights' sum
  for (int j = 0; j < a.top_k; ++j) {
    float best = -INFINITY;
    int best_e = max_route_experts;  // above every expert: any real one beats it on a tie
    for (int i = 0, e = lane; e < a.experts; ++i, e += 32) {
      const float v = logits[e];
      if (((taken >> i) & 1U) == 0 && (v > best || (v == best && e < best_e))) {
        best = v;
        best_e = e;
      }
    }
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2) {
      const float v = shuffle_xor(best, offset);
      const int e = shuffle_xor(best_e, offset);
      if (v > best || (v == best && e < best_e)) {
        best = v;
        best_e = e;
      }
    }
    // Every lane now holds the same winner; its owner marks it taken.
    if (best_e % 32 == lane) taken |= 1U << (best_e / 32);
    if (lane == 0) {
      const float w = expf(best - max) / sum;
      a.ids[static_cast<std::int64_t>(t) * a.top_k + j] = best_e;
      a.weights[static_cast<std::int64_t>(t) * a.top_k + j] = w;
      kept += w;
      if (a.expert_load != nullptr) atomicAdd(a.expert_load + best_e, 1);
    }
  }
  if (a.renormalize && lane == 0) {
    float* w = a.weights + static_cast<std::int64_t>(t) * a.top_k;
    for (int j = 0; j < a.top_k; ++j) w[j] /= kept;
  }
}

}  // namespace

void moe_route(const moe_route_params& p, cudaStream_t stream) {
  const moe_route_shape shape = checked_moe_route_shape(p);
  const std::int64_t n = shape.num_tokens;
  const std::int64_t experts = shape.num_experts;
  const std::int64_t k = shape.top_k;
  KERNEL_CHECK("moe_route", experts <= max_route_experts && n < (std::int64_t{1} << 31) / k);
  if (n == 0) return;
  const route_args args{p.topk_ids.as<std::int32_t>(),
                        p.topk_weights.as<float>(),
                        p.router_logits.as<const float>(),
                        p.expert_load.empty() ? nullptr : p.expert_load.as<std::int32_t>(),
                        static_cast<int>(n),
                        static_cast<int>(experts),
                        static_cast<int>(k),
                        p.renormalize};
  const auto blocks = static_cast<unsigned int>((n + route_warps - 1) / route_warps);
  launch_kernel(moe_route_kernel, dim3(blocks), dim3(32 * route_warps), 0, stream, args);
}

}  // namespace pagedserve::kernels::cuda
