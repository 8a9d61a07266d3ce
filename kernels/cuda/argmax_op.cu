// argmax_rows: greedy sampling on the device, one block per logits row. Matches the CPU
// sampler's greedy rule: the lowest token id wins ties, NaN counts as -inf, and a row whose
// logits are all NaN or -inf yields token 0.

#include <climits>
#include <cstdint>

#include "kernels/check.h"
#include "kernels/cuda/arg_max.cuh"
#include "kernels/cuda/block_reduce.cuh"
#include "kernels/cuda/cuda_ops.cuh"
#include "kernels/cuda/launch.cuh"

namespace pagedserve::kernels::cuda {
namespace {

constexpr int argmax_threads = 256;

__global__ void argmax_kernel(std::int32_t* token_ids, const float* logits, std::int64_t vocab) {
  __shared__ arg_max scratch[32];
  const float* row = logits + static_cast<std::int64_t>(blockIdx.x) * vocab;
  arg_max best = arg_max_identity();
  const arg_max_op op;
  for (std::int64_t i = threadIdx.x; i < vocab; i += blockDim.x) {
    const float v = row[i];
    best = op(best, arg_max{isnan(v) ? -INFINITY : v, static_cast<int>(i)});
  }
  best = block_reduce(best, op, arg_max_identity(), scratch);
  if (threadIdx.x == 0) token_ids[blockIdx.x] = best.index;
}

}  // namespace

void argmax_rows(const tensor& logits, const tensor& token_ids, cudaStream_t stream) {
  KERNEL_CHECK("argmax_rows", logits.type == dtype::f32 && logits.rank == 2);
  KERNEL_CHECK("argmax_rows", token_ids.type == dtype::i32);
  const std::int64_t num_rows = logits.dim(0);
  const std::int64_t vocab = logits.dim(1);
  KERNEL_CHECK("argmax_rows", token_ids.numel() == num_rows && vocab > 0 && vocab <= INT_MAX);
  KERNEL_CHECK("argmax_rows", num_rows < (std::int64_t{1} << 31));
  if (num_rows == 0) return;
  launch_kernel(argmax_kernel, dim3(static_cast<unsigned int>(num_rows)), dim3(argmax_threads), 0,
                stream, token_ids.as<std::int32_t>(), logits.as<const float>(), vocab);
}

}  // namespace pagedserve::kernels::cuda
