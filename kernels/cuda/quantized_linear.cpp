#include "kernels/cuda/quantized_linear.h"

#include "kernels/check.h"
#include "kernels/cuda/cuda_ops.cuh"
#include "kernels/cuda/mixed_gemm_packing.h"

namespace pagedserve::kernels::cuda {
namespace {

// The mixed GEMM's blocks each read all of x for their 8 output columns, so x's traffic
// grows with the rows and passes the weight's from about 16 rows (docs/cuda-backend.md):
// larger batches dequantize (or take W8A8). Reasoned, not yet measured (bench_cuda_qgemm).
constexpr std::int64_t mixed_gemm_max_rows = 16;

// FP8 W8A8 checkpoints whose weights have one scale per row (cuBLASLt's outer-vector scales).
bool takes_w8a8(const quantized_weight& w) {
  return w.format == weight_format::fp8_e4m3 && w.fp8_activations && w.num_groups() == 1 &&
         w.out_features % 16 == 0;
}

std::size_t round_up(std::size_t bytes) { return (bytes + 255) / 256 * 256; }

}  // namespace

quantized_route route_quantized_linear(const quantized_weight& w, std::int64_t m) {
  if (m <= mixed_gemm_max_rows) return quantized_route::mixed_gemm;
  return takes_w8a8(w) ? quantized_route::fp8_w8a8 : quantized_route::dequantize_gemm;
}

void quantized_linear::run(const tensor& out, const tensor& x, const quantized_weight& w,
                           bool capturing) {
  const std::int64_t m = x.numel() / w.in_features;
  quantized_route route = route_quantized_linear(w, m);
  // Nothing may allocate under a graph capture: a route whose scratch (or cuBLASLt set-up)
  // no earlier step has made (the engine's profiling forward, at the largest step, does)
  // falls back to the mixed GEMM.
  if (capturing && route != quantized_route::mixed_gemm &&
      (scratch_bytes(route, w, m) > scratch_bytes_ ||
       (route == quantized_route::fp8_w8a8 && !e4m3_gemm_))) {
    route = quantized_route::mixed_gemm;
  }
  run_route(route, out, x, w);
}

std::size_t quantized_linear::scratch_bytes(quantized_route route, const quantized_weight& w,
                                            std::int64_t m) {
  if (route == quantized_route::fp8_w8a8) {
    return round_up(static_cast<std::size_t>(m * w.in_features)) + m * sizeof(float);
  }
  if (route == quantized_route::dequantize_gemm) {
    return static_cast<std::size_t>(w.out_features * w.in_features) * 2;
  }
  return 0;
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
    KERNEL_CHECK("linear", takes_w8a8(w));
    const std::size_t code_bytes = round_up(static_cast<std::size_t>(m * w.in_features));
    auto* base = static_cast<std::uint8_t*>(scratch(scratch_bytes(route, w, m)));
    const tensor codes = tensor::make(base, dtype::u8, {m, w.in_features});
    const tensor scales = tensor::make(base + code_bytes, dtype::f32, {m});
    quantize_rows_e4m3(codes, scales, x2, stream);
    const tensor w_codes = tensor::make(w.codes.data, dtype::u8, {w.out_features, w.in_features});
    const tensor w_scales = tensor::make(w.scales.data, dtype::f32, {w.out_features});
    fp8_gemm().run(out2, codes, w_codes, scales, w_scales);
    return;
  }
  const tensor dense =
      tensor::make(scratch(scratch_bytes(route, w, m)), x.type, {w.out_features, w.in_features});
  dequantize_packed(dense, w, stream);
  runtime_.gemm(out2, x2, dense);
}

e4m3_gemm& quantized_linear::fp8_gemm() {
  if (!e4m3_gemm_) e4m3_gemm_ = e4m3_gemm::create(runtime_);
  return *e4m3_gemm_;
}

// Grows outside captures only (run() sees to it). The outgrown memory stays allocated: a
// graph captured earlier may write to it when replayed, and enqueued kernels may still use it.
void* quantized_linear::scratch(std::size_t bytes) {
  if (bytes > scratch_bytes_) {
    if (scratch_) retired_scratch_.push_back(std::move(scratch_));
    scratch_ = runtime_.allocate(bytes);
    scratch_bytes_ = bytes;
  }
  return scratch_.get();
}

}  // namespace pagedserve::kernels::cuda
