#include "train/model/matrix_ops.h"

#include <algorithm>

#include "kernels/cpu/simd/simd_kernels.h"

namespace pagedserve::train {
namespace {

namespace simd = kernels::cpu::simd;

// B's rows per task: a multiple of the kernels' 6-column tile.
constexpr std::int64_t panel_rows = 48;

simd::matmul_args args_of(matrix a, matrix b, output_matrix c) {
  simd::matmul_args args;
  args.x = a.data;
  args.ldx = a.stride;
  args.w = b.data;
  args.ldw = b.stride;
  args.out = c.data;
  args.ldo = c.stride;
  args.m = a.rows;
  args.k = a.cols;
  return args;
}

// Square tiles keep both sides of a transpose in cache.
constexpr std::int64_t transpose_tile = 32;

void transpose_rows(matrix in, float* out, std::int64_t row_begin, std::int64_t row_end) {
  for (std::int64_t c0 = 0; c0 < in.cols; c0 += transpose_tile) {
    const std::int64_t c1 = std::min(in.cols, c0 + transpose_tile);
    for (std::int64_t r = row_begin; r < row_end; ++r) {
      const float* row = in.data + r * in.stride;
      for (std::int64_t c = c0; c < c1; ++c) out[c * in.rows + r] = row[c];
    }
  }
}

}  // namespace

void matmul_nt(matrix a, matrix b, output_matrix c) {
  if (a.rows == 0 || b.rows == 0) return;
  simd::active_kernels().matmul_panel(args_of(a, b, c), 0, b.rows);
}

void parallel_matmul_nt(matrix a, matrix b, output_matrix c) {
  if (a.rows == 0 || b.rows == 0) return;
  const simd::matmul_args args = args_of(a, b, c);
  const simd::matmul_panel_fn panel = simd::active_kernels().matmul_panel;
  const std::int64_t num_panels = (b.rows + panel_rows - 1) / panel_rows;
#pragma omp parallel for schedule(dynamic, 1)
  for (std::int64_t i = 0; i < num_panels; ++i) {
    panel(args, i * panel_rows, std::min(b.rows, (i + 1) * panel_rows));
  }
}

void transpose(matrix in, float* out) {
  for (std::int64_t r0 = 0; r0 < in.rows; r0 += transpose_tile) {
    transpose_rows(in, out, r0, std::min(in.rows, r0 + transpose_tile));
  }
}

void parallel_transpose(matrix in, float* out) {
  const std::int64_t num_tiles = (in.rows + transpose_tile - 1) / transpose_tile;
#pragma omp parallel for schedule(static)
  for (std::int64_t t = 0; t < num_tiles; ++t) {
    transpose_rows(in, out, t * transpose_tile, std::min(in.rows, (t + 1) * transpose_tile));
  }
}

}  // namespace pagedserve::train
