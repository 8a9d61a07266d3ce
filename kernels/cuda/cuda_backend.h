#pragma once
// The CUDA backend (sm_90a): device memory, one stream, one cuBLAS handle. Ops are enqueued
// on the stream and return at once; copies to the host and `synchronize` wait. No CUDA types
// in this header: non-CUDA code (the forward, the CLI) includes it.
//
//   auto be = make_cuda_backend({.compute_type = dtype::bf16});
//   if (!be) report(be.err().message);  // no device, no driver, or a bad option

#include <memory>

#include "kernels/backend.h"
#include "runtime/core/result.h"

namespace pagedserve::kernels {

struct cuda_backend_options {
  // f32: fp32 storage, cuBLAS in strict fp32 (TF32 off); bf16: bf16 storage, fp32
  // accumulation everywhere. Other types are refused.
  dtype compute_type = dtype::bf16;
  int device = 0;
};

[[nodiscard]] result<std::unique_ptr<backend>> make_cuda_backend(
    const cuda_backend_options& options = {});

// Greedy sampling on the device: token_ids[r] = argmax(logits[r, :]) for f32 logits
// [rows, vocab] and i32 token_ids [rows], both memory of `cuda` (which must come from
// make_cuda_backend). The lowest id wins ties; NaN counts as -inf; an all -inf row gives 0.
void argmax_rows(backend& cuda, const tensor& logits, const tensor& token_ids);

}  // namespace pagedserve::kernels
