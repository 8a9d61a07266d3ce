// rope: rotate-half rotary embedding in place. The angle is float(position) * inv_freq[i] in
// fp32 as the CPU reference forms it; cos/sin come from sincosf (full precision: the build
// never uses --use_fast_math, whose __sinf/__cosf lose accuracy at large angles).

#include <cstdint>

#include "kernels/check.h"
#include "kernels/cuda/cuda_ops.cuh"
#include "kernels/cuda/element.cuh"
#include "kernels/cuda/launch.cuh"

namespace pagedserve::kernels::cuda {
namespace {

constexpr int rope_threads = 256;

// One block per token; threads stride over (head, i) pairs with i < head_dim / 2.
template <class T>
__global__ void rope_kernel(T* x, const std::int32_t* positions, const float* inv_freq,
                            std::int64_t num_heads, std::int64_t head_dim) {
  const std::int64_t token = blockIdx.x;
  const std::int64_t half = head_dim / 2;
  const auto position = static_cast<float>(positions[token]);
  T* rows = x + token * num_heads * head_dim;
  for (std::int64_t k = threadIdx.x; k < num_heads * half; k += blockDim.x) {
    const std::int64_t head = k / half;
    const std::int64_t i = k % half;
    float s = 0.0F;
    float c = 0.0F;
    sincosf(position * inv_freq[i], &s, &c);
    T* row = rows + head * head_dim;
    const float a = to_float(row[i]);
    const float b = to_float(row[i + half]);
    row[i] = from_float<T>(a * c - b * s);
    row[i + half] = from_float<T>(b * c + a * s);
  }
}

}  // namespace

void rope(const rope_params& p, cudaStream_t stream) {
  KERNEL_CHECK("rope", p.x.rank == 3);
  KERNEL_CHECK("rope", p.positions.type == dtype::i32 && p.inv_freq.type == dtype::f32);
  const std::int64_t num_tokens = p.x.dim(0);
  const std::int64_t head_dim = p.x.dim(2);
  KERNEL_CHECK("rope", head_dim % 2 == 0 && p.inv_freq.numel() == head_dim / 2);
  KERNEL_CHECK("rope", p.positions.numel() == num_tokens);
  KERNEL_CHECK("rope", num_tokens < (std::int64_t{1} << 31));
  if (num_tokens == 0) return;
  dispatch_float_type("rope", p.x.type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_kernel(rope_kernel<T>, dim3(static_cast<unsigned int>(num_tokens)), dim3(rope_threads),
                  0, stream, p.x.as<T>(), p.positions.as<const std::int32_t>(),
                  p.inv_freq.as<const float>(), p.x.dim(1), head_dim);
  });
}

}  // namespace pagedserve::kernels::cuda
