#pragma once
// Launchers of the CUDA ops (kernels/ops.h): each checks shapes and types on the host, then
// enqueues its kernels on `stream` and returns without waiting. Tensors are device memory.
// f32, bf16 and f16 storage are accepted wherever kernels/ops.h says "compute type"; all
// arithmetic is fp32. Internal to kernels/cuda: cuda_backend.cpp and the .cu files include it
// (in both builds: nvcc, and the SIMT emulator's).

#include <driver_types.h>

#include <cstddef>
#include <cstdint>

#include "kernels/moe_ops.h"
#include "kernels/ops.h"

namespace pagedserve::kernels::cuda {

void embedding(const embedding_params& p, cudaStream_t stream);
void gather_rows(const gather_rows_params& p, cudaStream_t stream);
void rms_norm(const rms_norm_params& p, cudaStream_t stream);
void add_rms_norm(const add_rms_norm_params& p, cudaStream_t stream);
void rope(const rope_params& p, cudaStream_t stream);
void kv_write(const kv_write_params& p, cudaStream_t stream);
void silu_mul(const silu_mul_params& p, cudaStream_t stream);
void add(const add_params& p, cudaStream_t stream);
// One launch of a thread per pair; none when there are no pairs.
void scatter_tokens(const scatter_tokens_params& p, cudaStream_t stream);

// The mixture-of-experts ops (kernels/moe_ops.h): moe_route_op.cu, fused_moe_op.cu (scratch
// as moe_layout.h lays it out) and elementwise_op.cu. fused_moe takes dense stacks in the
// compute type and quantized ones for which fused_moe_reads (host layout, no act-order).
void moe_route(const moe_route_params& p, cudaStream_t stream);
void fused_moe(const fused_moe_params& p, cudaStream_t stream);
[[nodiscard]] std::int64_t fused_moe_scratch_bytes(const fused_moe_shape& shape);
[[nodiscard]] bool fused_moe_reads(const quantized_weight& stack);
void sigmoid_gated_add(const sigmoid_gated_add_params& p, cudaStream_t stream);

// out[r, c] += bias[c]: the epilogue of linear (whose GEMM is device_runtime::gemm).
void bias_add(const tensor& out, const tensor& bias, cudaStream_t stream);

// Split-K (flash-decoding) scratch: floats of device memory paged_attention needs for `p`
// (0 when it does not split), and the most it can need for any rows and context of p's model
// (query heads per KV head, head_dim): allocating the bound once never grows under a graph.
[[nodiscard]] std::size_t paged_attention_workspace_floats(const paged_attention_params& p);
[[nodiscard]] std::size_t paged_attention_workspace_bound(const paged_attention_params& p);
// `workspace` holds at least paged_attention_workspace_floats(p) floats (may be null if 0).
void paged_attention(const paged_attention_params& p, float* workspace, cudaStream_t stream);

// The tensor-core kernel for the rows of sequences with more than one new token (16-bit
// types, max_query_len > 1, head_dim 32/64/128/256); paged_attention calls it itself.
[[nodiscard]] bool prefill_attention_supported(const paged_attention_params& p);
void prefill_attention(const paged_attention_params& p, cudaStream_t stream);

// token_ids[r] = argmax(logits[r, :]) for f32 logits [rows, vocab] and i32 token_ids [rows]:
// the lowest id wins ties, NaN counts as -inf, a row of only NaN/-inf gives 0.
void argmax_rows(const tensor& logits, const tensor& token_ids, cudaStream_t stream);

// The host sampler's pick for every row (kernels/ops.h sample_params), one block per row.
void sample(const sample_params& p, cudaStream_t stream);
// The logits processing before sample() and the packed token counts it reads (kernels/ops.h).
void process_logits(const process_logits_params& p, cudaStream_t stream);
void count_tokens(const count_tokens_params& p, cudaStream_t stream);
void count_sampled(const count_sampled_params& p, cudaStream_t stream);

// FP8 W8A8 activations: per row of x (f32, bf16 or f16 [rows, width]) the scale
// max(max|x| / 448, 1 / (448 * 512)) into scales (f32 [rows]) and the e4m3 codes of
// x * (1 / scale) into codes (u8 [rows, width]).
void quantize_rows_e4m3(const tensor& codes, const tensor& scales, const tensor& x,
                        cudaStream_t stream);

// linear with a quantized W in the layout of mixed_gemm_packing.h (packing 1): out (x's type
// or f32) [m, out_features] = x (bf16 or f16) [m, in_features] @ W^T, dequantized in
// registers on the tensor cores (mixed_gemm_op.cu). No bias.
void mixed_gemm(const tensor& out, const tensor& x, const quantized_weight& w, cudaStream_t stream);
// dense (bf16 or f16) [out_features, in_features] = that W dequantized, for large batches'
// dequantize + cuBLAS route.
void dequantize_packed(const tensor& dense, const quantized_weight& w, cudaStream_t stream);

// Fills an f32 or bf16 tensor with uniform values in [-scale, scale) from a counter-based
// hash of (seed, index): benchmark inputs without a host round trip.
void fill_uniform(const tensor& dst, std::uint32_t seed, float scale, cudaStream_t stream);

}  // namespace pagedserve::kernels::cuda
