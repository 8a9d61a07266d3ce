// silu_mul, add and sigmoid_gated_add: element-wise in fp32, stored in the tensors' type. out
// may alias an input: each element is read before it is written, by the same thread.

#include <cstdint>

#include "kernels/check.h"
#include "kernels/cuda/cuda_ops.cuh"
#include "kernels/cuda/element.cuh"
#include "kernels/cuda/launch.cuh"

namespace pagedserve::kernels::cuda {
namespace {

constexpr int elementwise_threads = 256;

struct silu_mul_fn {
  __device__ float operator()(float gate, float up) const {
    return gate / (1.0F + expf(-gate)) * up;
  }
};
struct add_fn {
  __device__ float operator()(float a, float b) const { return a + b; }
};

template <class T, class Fn>
__global__ void binary_kernel(T* out, const T* a, const T* b, std::int64_t n, Fn fn) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    out[i] = from_float<T>(fn(to_float(a[i]), to_float(b[i])));
  }
}

template <class Fn>
void launch_binary(const char* what, const tensor& out, const tensor& a, const tensor& b, Fn fn,
                   cudaStream_t stream) {
  KERNEL_CHECK(what, a.type == out.type && b.type == out.type);
  KERNEL_CHECK(what, a.numel() == b.numel() && out.numel() == a.numel());
  const std::int64_t n = out.numel();
  if (n == 0) return;
  dispatch_float_type(what, out.type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_kernel(binary_kernel<T, Fn>, dim3(grid_for(n, elementwise_threads)),
                  dim3(elementwise_threads), 0, stream, out.as<T>(), a.as<const T>(),
                  b.as<const T>(), n, fn);
  });
}

// out[i] += sigmoid(gate[i / width]) * x[i]: qwen2_moe's gated shared expert.
template <class T>
__global__ void sigmoid_gated_add_kernel(T* out, const T* x, const T* gate, std::int64_t n,
                                         std::int64_t width) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    const float g = 1.0F / (1.0F + expf(-to_float(gate[i / width])));
    out[i] = from_float<T>(to_float(out[i]) + g * to_float(x[i]));
  }
}

}  // namespace

void sigmoid_gated_add(const sigmoid_gated_add_params& p, cudaStream_t stream) {
  const char* what = "sigmoid_gated_add";
  const dtype type = p.out.type;
  KERNEL_CHECK(what, p.x.type == type && p.gate_logits.type == type);
  const std::int64_t rows = p.gate_logits.numel();
  KERNEL_CHECK(what, rows > 0 && p.out.numel() == p.x.numel() && p.x.numel() % rows == 0);
  const std::int64_t n = p.out.numel();
  if (n == 0) return;
  dispatch_float_type(what, type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_kernel(sigmoid_gated_add_kernel<T>, dim3(grid_for(n, elementwise_threads)),
                  dim3(elementwise_threads), 0, stream, p.out.as<T>(), p.x.as<const T>(),
                  p.gate_logits.as<const T>(), n, n / rows);
  });
}

void silu_mul(const silu_mul_params& p, cudaStream_t stream) {
  launch_binary("silu_mul", p.out, p.gate, p.up, silu_mul_fn{}, stream);
}

void add(const add_params& p, cudaStream_t stream) {
  launch_binary("add", p.out, p.a, p.b, add_fn{}, stream);
}

}  // namespace pagedserve::kernels::cuda
