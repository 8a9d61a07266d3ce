#pragma once
// The CUDA backend (sm_90a): device memory, one stream, cuBLAS GEMMs, CUDA graphs. Ops are
// enqueued on the stream and return at once; copies to the host and `synchronize` wait. No
// CUDA types in this header: non-CUDA code (the forward, the CLI) includes it.
//
//   auto be = make_cuda_backend({.compute_type = dtype::bf16});
//   if (!be) report(be.err().message);  // no device, no driver, or a bad option
//
// The same code links against the SIMT emulator instead of the CUDA runtime in the library
// pagedserve_kernels_simt (kernels/cuda/emulator): then "the device" is the CPU, so the
// backend and its kernels are tested in CI. A program links one of the two libraries.

#include <cstdint>
#include <functional>
#include <memory>

#include "common/result.h"
#include "kernels/backend.h"

namespace pagedserve::kernels {

struct cuda_backend_options {
  // f32: fp32 storage, cuBLAS in strict fp32 (TF32 off), to match the fp32 reference;
  // bf16 or f16: 16-bit storage, fp32 accumulation everywhere. i32 is refused.
  dtype compute_type = dtype::bf16;
  int device = 0;
};

[[nodiscard]] result<std::unique_ptr<backend>> make_cuda_backend(
    const cuda_backend_options& options = {});

// The functions below take a backend made by make_cuda_backend (abort otherwise) and tensors
// of its memory.

// Greedy sampling on the device: token_ids[r] = argmax(logits[r, :]) for f32 logits
// [rows, vocab] and i32 token_ids [rows]. The lowest id wins ties; NaN counts as -inf; an
// all -inf row gives 0.
void argmax_rows(backend& cuda, const tensor& logits, const tensor& token_ids);

// Uniform values in [-scale, scale) from a hash of (seed, index), generated on the device:
// benchmark inputs without a host round trip. f32, bf16 or f16.
void fill_uniform(backend& cuda, const tensor& dst, std::uint32_t seed, float scale);

// FP8 W8A8 pieces (not yet a linear layer's path): per-row dynamic quantization of x (f32,
// bf16 or f16 [m, k]) into e4m3 codes (u8 [m, k]) and scales (f32 [m]) as vLLM's
// dynamic_per_token_scaled_fp8_quant does, and the FP8 GEMM over such codes
// (kernels/cuda/e4m3_gemm.h: out [m, n] = codes_x codes_w^T * x_scale * w_scale, scales one or
// one per row, k and n multiples of 16).
void quantize_rows_e4m3(backend& cuda, const tensor& codes, const tensor& scales, const tensor& x);
void gemm_e4m3(backend& cuda, const tensor& out, const tensor& x_codes, const tensor& w_codes,
               const tensor& x_scales, const tensor& w_scales);

// How linear computes with a quantized weight (kernels/cuda/quantized_linear.h picks one by
// the number of rows): the mixed-input GEMM (dequantized in registers), FP8 W8A8 (x quantized
// per token, cuBLASLt FP8), or the weight dequantized into scratch and cuBLAS.
enum class quantized_linear_route : std::uint8_t { mixed_gemm, fp8_w8a8, dequantize_gemm };
// linear with p.quantized (uploaded by this backend) through `route` whatever the rows: tests
// and benchmarks compare the routes. fp8_w8a8 takes FP8 W8A8 layers (fp8_activations) with
// one scale per row only.
void linear_through(backend& cuda, quantized_linear_route route, const linear_params& p);

// Seconds the device takes to run what `ops` enqueues (CUDA events around it).
[[nodiscard]] double time_on_stream(backend& cuda, const std::function<void()>& ops);

}  // namespace pagedserve::kernels
