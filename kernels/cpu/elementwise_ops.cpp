// Row and element-wise ops: embedding gather, gather_rows, scatter_tokens, silu_mul, add.

#include <cmath>
#include <cstdint>
#include <cstring>

#include "kernels/check.h"
#include "kernels/cpu/cpu_ops.h"
#include "kernels/cpu/parallel.h"

namespace pagedserve::kernels::cpu {
namespace {

// out[i, :] = table[index[i], :] with every index checked against table's rows.
void gather(const char* what, const tensor& out, const tensor& table, const tensor& index) {
  KERNEL_CHECK(what, out.type == dtype::f32 && table.type == dtype::f32);
  KERNEL_CHECK(what, index.type == dtype::i32 && table.rank >= 1);
  const std::int64_t width = table.row_size();
  const std::int64_t num_rows = index.numel();
  KERNEL_CHECK(what, out.numel() == num_rows * width);
  const std::int32_t* idx = index.as<const std::int32_t>();
  const float* src = table.as<const float>();
  float* dst = out.as<float>();
  for (std::int64_t i = 0; i < num_rows; ++i) {
    KERNEL_CHECK(what, idx[i] >= 0 && idx[i] < table.dim(0));
    std::memcpy(dst + i * width, src + static_cast<std::int64_t>(idx[i]) * width,
                static_cast<std::size_t>(width) * sizeof(float));
  }
}

}  // namespace

void embedding(const embedding_params& p) { gather("embedding", p.out, p.table, p.ids); }

void gather_rows(const gather_rows_params& p) { gather("gather_rows", p.out, p.x, p.indices); }

void scatter_tokens(const scatter_tokens_params& p) {
  const char* what = "scatter_tokens";
  KERNEL_CHECK(what, p.dst.type == dtype::i32 && p.dst.rank == 1);
  KERNEL_CHECK(what, p.src.type == dtype::i32 && p.src.rank == 1);
  KERNEL_CHECK(what, p.pairs.type == dtype::i32 && p.pairs.rank == 2 && p.pairs.dim(1) == 2);
  const std::int64_t num_dst = p.dst.dim(0);
  const std::int64_t num_src = p.src.dim(0);
  const std::int64_t num_pairs = p.pairs.dim(0);
  const std::int32_t* pairs = p.pairs.as<const std::int32_t>();
  const std::int32_t* src = p.src.as<const std::int32_t>();
  std::int32_t* dst = p.dst.as<std::int32_t>();
  for (std::int64_t i = 0; i < num_pairs; ++i) {
    const std::int32_t to = pairs[2 * i];
    const std::int32_t from = pairs[2 * i + 1];
    KERNEL_CHECK(what, to >= 0 && to < num_dst);
    KERNEL_CHECK(what, from >= 0 && from < num_src);
    dst[to] = src[from];
  }
}

void silu_mul(const silu_mul_params& p) {
  KERNEL_CHECK("silu_mul", p.gate.type == dtype::f32 && p.up.type == dtype::f32);
  KERNEL_CHECK("silu_mul", p.out.type == dtype::f32);
  KERNEL_CHECK("silu_mul", p.gate.numel() == p.up.numel() && p.out.numel() == p.up.numel());
  const std::int64_t n = p.out.numel();
  const float* gate = p.gate.as<const float>();
  const float* up = p.up.as<const float>();
  float* out = p.out.as<float>();
#pragma omp parallel for schedule(static) if (n >= min_parallel_elements)
  for (std::int64_t i = 0; i < n; ++i) {
    const float g = gate[i];
    out[i] = g / (1.0F + std::exp(-g)) * up[i];
  }
}

void add(const add_params& p) {
  KERNEL_CHECK("add", p.a.type == dtype::f32 && p.b.type == dtype::f32);
  KERNEL_CHECK("add", p.out.type == dtype::f32);
  KERNEL_CHECK("add", p.a.numel() == p.b.numel() && p.out.numel() == p.a.numel());
  const std::int64_t n = p.out.numel();
  const float* a = p.a.as<const float>();
  const float* b = p.b.as<const float>();
  float* out = p.out.as<float>();
  for (std::int64_t i = 0; i < n; ++i) out[i] = a[i] + b[i];
}

}  // namespace pagedserve::kernels::cpu
