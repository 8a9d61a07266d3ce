#include "kernels/cuda/quantized_linear.h"

#include "kernels/check.h"
#include "kernels/cuda/cuda_ops.cuh"
#include "kernels/cuda/mixed_gemm_packing.h"

namespace pagedserve::kernels::cuda {
namespace {

constexpr std::int64_t rows_per_pass = 64;  // mixed_gemm_op.cu's rows per block

bool one_scale_per_row(const quantized_weight& w) {
  return w.format == weight_format::fp8_e4m3 && w.num_groups() == 1 && w.out_features % 16 == 0;
}

std::size_t round_up(std::size_t bytes) { return (bytes + 255) / 256 * 256; }

}  // namespace

quantized_route route_quantized_linear(const quantized_weight& w, std::int64_t m) {
  const std::int64_t passes = w.format == weight_format::int4 ? 4 : 2;  // 16 / code bits
  if (m <= passes * rows_per_pass) return quantized_route::mixed_gemm;
  return one_scale_per_row(w) ? quantized_route::fp8_w8a8 : quantized_route::dequantize_gemm;
}

void quantized_linear::run(const tensor& out, const tensor& x, const quantized_weight& w,
                           bool capturing) {
  const std::int64_t m = x.numel() / w.in_features;
  run_route(capturing ? quantized_route::mixed_gemm : route_quantized_linear(w, m), out, x, w);
}

void quantized_linear::run_route(quantized_route route, const tensor& out, const tensor& x,
                                 const quantized_weight& w) {
  KERNEL_CHECK("linear", w.packing == mixed_gemm_packing);
  KERNEL_CHECK("linear", x.numel() % w.in_features == 0);
  const std::int64_t m = x.numel() / w.in_features;
  const cudaStream_t stream = runtime_.stream();
  if (route == quantized_route::mixed_gemm || m == 0) {
    mixed_gemm(out, x, w, stream);
    return;
  }
  const tensor x2 = tensor::make(x.data, x.type, {m, w.in_features});
  const tensor out2 = tensor::make(out.data, out.type, {m, w.out_features});
  if (route == quantized_route::fp8_w8a8) {
    KERNEL_CHECK("linear", one_scale_per_row(w));
    const std::size_t code_bytes = round_up(static_cast<std::size_t>(m * w.in_features));
    auto* base = static_cast<std::uint8_t*>(scratch(code_bytes + m * sizeof(float)));
    const tensor codes = tensor::make(base, dtype::u8, {m, w.in_features});
    const tensor scales = tensor::make(base + code_bytes, dtype::f32, {m});
    quantize_rows_e4m3(codes, scales, x2, stream);
    const tensor w_codes = tensor::make(w.codes.data, dtype::u8, {w.out_features, w.in_features});
    const tensor w_scales = tensor::make(w.scales.data, dtype::f32, {w.out_features});
    fp8_gemm().run(out2, codes, w_codes, scales, w_scales);
    return;
  }
  const std::size_t bytes = static_cast<std::size_t>(w.out_features * w.in_features) * 2;
  const tensor dense = tensor::make(scratch(bytes), x.type, {w.out_features, w.in_features});
  dequantize_packed(dense, w, stream);
  runtime_.gemm(out2, x2, dense);
}

e4m3_gemm& quantized_linear::fp8_gemm() {
  if (!e4m3_gemm_) e4m3_gemm_ = e4m3_gemm::create(runtime_);
  return *e4m3_gemm_;
}

// Grows by waiting for the stream first, so no enqueued kernel still reads the old memory.
void* quantized_linear::scratch(std::size_t bytes) {
  if (bytes > scratch_bytes_) {
    runtime_.synchronize();
    scratch_.reset();
    scratch_ = runtime_.allocate(bytes);
    scratch_bytes_ = bytes;
  }
  return scratch_.get();
}

}  // namespace pagedserve::kernels::cuda
