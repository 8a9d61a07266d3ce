#pragma once
// matrix_ops: the trainer's matrix products, all of one form, C = A B^T (C[i][j] = dot of
// row i of A and row j of B), through the CPU backend's vector kernels
// (kernels/cpu/simd). The other forms a backward pass needs (A B, A^T B) are this one after
// a transpose, which costs one pass over the smaller operands.

#include <cstdint>

namespace pagedserve::train {

struct matrix {
  const float* data = nullptr;
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::int64_t stride = 0;  // floats between rows (>= cols)
};

struct output_matrix {
  float* data = nullptr;
  std::int64_t stride = 0;
};

// c = a b^T on the calling thread; a.cols == b.cols. Overwrites c.
void matmul_nt(matrix a, matrix b, output_matrix c);
// The same, with b's rows split across the OpenMP team (for the model's big products).
void parallel_matmul_nt(matrix a, matrix b, output_matrix c);

// out[c * rows + r] = in[r * stride + c]: a contiguous [cols, rows] transpose.
void transpose(matrix in, float* out);
// The same with the rows split across the OpenMP team.
void parallel_transpose(matrix in, float* out);

}  // namespace pagedserve::train
