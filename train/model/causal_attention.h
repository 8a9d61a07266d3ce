#pragma once
// causal_attention: grouped-query attention over whole training windows, forward and
// backward. Rows are [batch][position]; q is [rows, H*hd], k and v are [rows, KV*hd] (RoPE
// already applied), query head h reads kv head h / (H / KV). The forward keeps the
// probabilities P [batch, H, T, T] for the backward (zeros above the diagonal).

#include <cstdint>

namespace pagedserve::train {

struct attention_shape {
  std::int64_t batch = 0;
  std::int64_t seq_len = 0;  // T
  std::int64_t num_heads = 0;
  std::int64_t num_kv_heads = 0;
  std::int64_t head_dim = 0;

  [[nodiscard]] std::int64_t probs_size() const { return batch * num_heads * seq_len * seq_len; }
};

void attention_forward(const attention_shape& s, const float* q, const float* k, const float* v,
                       float* probs, float* out);

// Overwrites dq, dk and dv.
void attention_backward(const attention_shape& s, const float* q, const float* k, const float* v,
                        const float* probs, const float* dout, float* dq, float* dk, float* dv);

}  // namespace pagedserve::train
