// e4m3_gemm on the GPU: cuBLASLt's FP8 matmul (Hopper's FP8 tensor cores). Row-major
// out [m, n] = x [m, k] w [n, k]^T is column-major out^T [n, m] = w^T' [n, k] x^T [k, m]:
// A = w (e4m3, op T, ld k), B = x (e4m3, op N, ld k), D = out (ld n), the "TN" layout FP8
// requires. A's scale (per output channel) and B's (per token) are cuBLASLt's A and B scale
// pointers, in scalar mode for one value and outer-vector mode for one per row of A (n) or
// column of B (m). fp32 accumulation without fast accumulation.

#include <cublasLt.h>

#include <climits>
#include <cstdint>

#include "kernels/check.h"
#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/e4m3_gemm.h"

namespace pagedserve::kernels::cuda {
namespace {

constexpr std::size_t lt_workspace_bytes = std::size_t{32} << 20;

cudaDataType_t out_type(dtype type) {
  switch (type) {
    case dtype::bf16:
      return CUDA_R_16BF;
    case dtype::f16:
      return CUDA_R_16F;
    default:
      return CUDA_R_32F;
  }
}

template <class T>
void set(cublasLtMatmulDesc_t desc, cublasLtMatmulDescAttributes_t attribute, const T& value) {
  CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(desc, attribute, &value, sizeof(value)));
}

std::int32_t scale_mode(const tensor& scales) {
  return scales.numel() == 1 ? CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F
                             : CUBLASLT_MATMUL_MATRIX_SCALE_OUTER_VEC_32F;
}

class lt_e4m3_gemm final : public e4m3_gemm {
 public:
  explicit lt_e4m3_gemm(device_runtime& runtime) : runtime_(runtime) {
    CUBLAS_CHECK(cublasLtCreate(&handle_));
    workspace_ = runtime.allocate(lt_workspace_bytes);
  }
  lt_e4m3_gemm(const lt_e4m3_gemm&) = delete;
  lt_e4m3_gemm& operator=(const lt_e4m3_gemm&) = delete;
  ~lt_e4m3_gemm() override { (void)cublasLtDestroy(handle_); }

  void run(const tensor& out, const tensor& x_codes, const tensor& w_codes, const tensor& x_scales,
           const tensor& w_scales) override {
    check_e4m3_gemm(out, x_codes, w_codes, x_scales, w_scales);
    const std::int64_t m = x_codes.dim(0);
    const std::int64_t n = w_codes.dim(0);
    const std::int64_t k = w_codes.dim(1);
    if (m == 0) return;
    KERNEL_CHECK("gemm_e4m3", m <= INT_MAX && n <= INT_MAX && k <= INT_MAX);
    cublasLtMatmulDesc_t desc = nullptr;
    CUBLAS_CHECK(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    set(desc, CUBLASLT_MATMUL_DESC_TRANSA, CUBLAS_OP_T);
    set(desc, CUBLASLT_MATMUL_DESC_TRANSB, CUBLAS_OP_N);
    set(desc, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, w_scales.data);
    set(desc, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, x_scales.data);
    set(desc, CUBLASLT_MATMUL_DESC_A_SCALE_MODE, scale_mode(w_scales));
    set(desc, CUBLASLT_MATMUL_DESC_B_SCALE_MODE, scale_mode(x_scales));
    cublasLtMatrixLayout_t a = nullptr;
    cublasLtMatrixLayout_t b = nullptr;
    cublasLtMatrixLayout_t d = nullptr;
    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&a, CUDA_R_8F_E4M3, static_cast<std::uint64_t>(k),
                                            static_cast<std::uint64_t>(n), k));
    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&b, CUDA_R_8F_E4M3, static_cast<std::uint64_t>(k),
                                            static_cast<std::uint64_t>(m), k));
    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&d, out_type(out.type), static_cast<std::uint64_t>(n),
                                            static_cast<std::uint64_t>(m), n));
    cublasLtMatmulPreference_t preference = nullptr;
    CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&preference));
    const std::size_t workspace_bytes = lt_workspace_bytes;
    CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(preference,
                                                      CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                      &workspace_bytes, sizeof(workspace_bytes)));
    cublasLtMatmulHeuristicResult_t heuristic{};
    int found = 0;
    CUBLAS_CHECK(cublasLtMatmulAlgoGetHeuristic(handle_, desc, a, b, d, d, preference, 1,
                                                &heuristic, &found));
    KERNEL_CHECK("gemm_e4m3 (cuBLASLt has no algorithm for this shape and scale mode)", found > 0);
    const float alpha = 1.0F;
    const float beta = 0.0F;
    CUBLAS_CHECK(cublasLtMatmul(handle_, desc, &alpha, w_codes.data, a, x_codes.data, b, &beta,
                                out.data, d, out.data, d, &heuristic.algo, workspace_.get(),
                                workspace_bytes, runtime_.stream()));
    CUBLAS_CHECK(cublasLtMatmulPreferenceDestroy(preference));
    CUBLAS_CHECK(cublasLtMatrixLayoutDestroy(d));
    CUBLAS_CHECK(cublasLtMatrixLayoutDestroy(b));
    CUBLAS_CHECK(cublasLtMatrixLayoutDestroy(a));
    CUBLAS_CHECK(cublasLtMatmulDescDestroy(desc));
  }

 private:
  device_runtime& runtime_;
  cublasLtHandle_t handle_ = nullptr;
  std::shared_ptr<void> workspace_;
};

}  // namespace

std::unique_ptr<e4m3_gemm> e4m3_gemm::create(device_runtime& runtime) {
  return std::make_unique<lt_e4m3_gemm>(runtime);
}

}  // namespace pagedserve::kernels::cuda
