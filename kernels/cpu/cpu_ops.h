#pragma once
// The CPU implementations of the ops in kernels/ops.h: fp32 compute on host memory.
// Matrix products go through OpenBLAS; row-parallel loops use OpenMP. BLAS calls are never
// made from inside an OpenMP region, so its threads and ours do not oversubscribe the cores.

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
