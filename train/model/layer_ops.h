#pragma once
// layer_ops: the row-wise pieces of a Llama layer, each forward with its backward. Rows are
// tokens; every function runs its rows across the OpenMP team. Backward functions add into
// the parameter gradients (dgain) and overwrite the input gradient (dx).

#include <cstdint>
#include <vector>

namespace pagedserve::train {

// y = x / sqrt(mean(x^2) + eps) * gain, per row of n; saves 1/sqrt(...) per row in rstd.
void rms_norm_forward(const float* x, const float* gain, std::int64_t rows, std::int64_t n,
                      double eps, float* y, float* rstd);
void rms_norm_backward(const float* x, const float* gain, const float* rstd, const float* dy,
                       std::int64_t rows, std::int64_t n, float* dx, float* dgain);

// HF Llama RoPE (rotate_half): in each head, element i < d/2 pairs with i + d/2, rotated by
// position * theta^(-2i/d). `positions[r]` is row r's position.
struct rope_table {
  std::int64_t head_dim = 0;
  std::vector<float> cos;  // [position][head_dim / 2]
  std::vector<float> sin;
};
[[nodiscard]] rope_table make_rope_table(std::int64_t head_dim, double theta,
                                         std::int64_t max_positions);
// In place on rows of num_heads * head_dim.
void rope_forward(const rope_table& table, const std::int64_t* positions, std::int64_t rows,
                  std::int64_t num_heads, float* x);
// The inverse rotation, which is the transpose: dx from dy, in place.
void rope_backward(const rope_table& table, const std::int64_t* positions, std::int64_t rows,
                   std::int64_t num_heads, float* d);

// m = silu(gate) * up, elementwise over count values.
void swiglu_forward(const float* gate, const float* up, std::int64_t count, float* m);
void swiglu_backward(const float* gate, const float* up, const float* dm, std::int64_t count,
                     float* dgate, float* dup);

// Mean cross-entropy of the rows' logits against targets; overwrites logits with d(loss)/d
// logits = (softmax - onehot) / rows. Returns the mean loss (accumulated in double).
double cross_entropy_forward_backward(float* logits, const std::int32_t* targets, std::int64_t rows,
                                      std::int64_t vocab);
// The mean loss alone (logits untouched).
double cross_entropy(const float* logits, const std::int32_t* targets, std::int64_t rows,
                     std::int64_t vocab);

// out[r] = embed[tokens[r]]; backward adds each row of dy into its token's gradient row.
void embedding_forward(const float* embed, const std::int32_t* tokens, std::int64_t rows,
                       std::int64_t n, float* out);
void embedding_backward(const std::int32_t* tokens, const float* dy, std::int64_t rows,
                        std::int64_t n, float* dembed);

// y += x over count values.
void add_into(float* y, const float* x, std::int64_t count);

}  // namespace pagedserve::train
