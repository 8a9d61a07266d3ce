#pragma once
// The CPU implementations of the ops in kernels/ops.h: fp32 compute on host memory.
// Matrix products and attention run our own vector kernels (simd/simd_kernels.h); every
// parallel loop is one OpenMP team, so no second thread pool (a BLAS's) fights it for the
// cores.

#include "kernels/ops.h"

namespace pagedserve::kernels::cpu {

void embedding(const embedding_params& p);
void rms_norm(const rms_norm_params& p);
void add_rms_norm(const add_rms_norm_params& p);
void linear(const linear_params& p);
void rope(const rope_params& p);
void kv_write(const kv_write_params& p);
void paged_attention(const paged_attention_params& p);
void silu_mul(const silu_mul_params& p);
void gather_rows(const gather_rows_params& p);
void add(const add_params& p);
void scatter_tokens(const scatter_tokens_params& p);

}  // namespace pagedserve::kernels::cpu
