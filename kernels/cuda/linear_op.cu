// linear: out[m, n] = x[m, k] @ W[n, k]^T (+ bias) through cublasGemmEx, fp32 accumulation.
//
// cuBLAS is column-major. Row-major W [n, k] is column-major W^T [k, n] (ld k); row-major x
// [m, k] is column-major x^T [k, m] (ld k); row-major out [m, n] is column-major out^T
// [n, m] (ld n). So out^T = W * x^T: A = W with op T (lda k), B = x with op N (ldb k),
// C = out (ldc n), and cuBLAS's (m, n, k) are (out_features, rows, in_features).

#include <climits>
#include <cstdint>

#include "kernels/check.h"
#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/cuda_ops.cuh"
#include "kernels/cuda/element.cuh"

namespace pagedserve::kernels::cuda {
namespace {

constexpr int bias_threads = 256;

template <class TOut, class TBias>
__global__ void add_bias_kernel(TOut* out, const TBias* bias, std::int64_t num_rows,
                                std::int64_t num_cols) {
  const std::int64_t n = num_rows * num_cols;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    out[i] = from_float<TOut>(to_float(out[i]) + to_float(bias[i % num_cols]));
  }
}

cudaDataType_t blas_type(dtype type) { return type == dtype::f32 ? CUDA_R_32F : CUDA_R_16BF; }

void add_bias(const linear_params& p, std::int64_t num_rows, std::int64_t num_cols,
              cudaStream_t stream) {
  KERNEL_CHECK("linear", p.bias.numel() == num_cols);
  KERNEL_CHECK("linear", p.bias.type == p.x.type || p.bias.type == p.out.type);
  const unsigned int grid = grid_for(num_rows * num_cols, bias_threads);
  dispatch_float_type("linear", p.out.type, [&](auto out_tag) {
    using TOut = typename decltype(out_tag)::type;
    dispatch_float_type("linear", p.bias.type, [&](auto bias_tag) {
      using TBias = typename decltype(bias_tag)::type;
      add_bias_kernel<TOut, TBias><<<grid, bias_threads, 0, stream>>>(
          p.out.as<TOut>(), p.bias.as<const TBias>(), num_rows, num_cols);
      CUDA_CHECK_LAUNCH();
    });
  });
}

}  // namespace

void linear(const linear_params& p, cublasHandle_t blas, cudaStream_t stream) {
  const dtype type = p.x.type;
  KERNEL_CHECK("linear", type == dtype::f32 || type == dtype::bf16);
  KERNEL_CHECK("linear", p.weight.type == type && p.weight.rank == 2);
  KERNEL_CHECK("linear", p.out.type == type || p.out.type == dtype::f32);
  const std::int64_t out_features = p.weight.dim(0);
  const std::int64_t in_features = p.weight.dim(1);
  KERNEL_CHECK("linear", in_features > 0 && p.x.numel() % in_features == 0);
  const std::int64_t num_rows = p.x.numel() / in_features;
  KERNEL_CHECK("linear", p.out.numel() == num_rows * out_features);
  KERNEL_CHECK("linear", num_rows <= INT_MAX && out_features <= INT_MAX && in_features <= INT_MAX);
  if (num_rows == 0 || out_features == 0) return;
  const float alpha = 1.0F;
  const float beta = 0.0F;
  CUBLAS_CHECK(cublasGemmEx(blas, CUBLAS_OP_T, CUBLAS_OP_N, static_cast<int>(out_features),
                            static_cast<int>(num_rows), static_cast<int>(in_features), &alpha,
                            p.weight.data, blas_type(type), static_cast<int>(in_features), p.x.data,
                            blas_type(type), static_cast<int>(in_features), &beta, p.out.data,
                            blas_type(p.out.type), static_cast<int>(out_features),
                            CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  if (!p.bias.empty()) add_bias(p, num_rows, out_features, stream);
}

}  // namespace pagedserve::kernels::cuda
