#pragma once
// model_forward: the decoder-only transformer forward pass (llama, mistral, qwen2, qwen3),
// written once against kernels::backend. One call runs a flattened batch through every
// layer, writes the new tokens' K/V into the paged cache, and returns logits:
//
//   h = embed(tokens); x = norm_in[0](h)
//   per layer l:  q, k, v = x Wq (+b), x Wk (+b), x Wv (+b)
//                 q, k = per-head rms_norm (qwen3); rope(q, k)
//                 cache[l] <- k, v;  a = paged_attention(q, cache[l]) Wo (+b)
//                 h += a; x = norm_post[l](h)
//                 m = (silu(x Wg) * x Wu) Wd;  h += m; x = norm_in[l+1](h) (final norm last)
//   logits = x[last rows] lm_head^T
//
// The residual adds are fused into the following rms_norm (add_rms_norm).

#include "kernels/backend.h"
#include "runtime/forward/batch_metadata.h"
#include "runtime/forward/forward_batch.h"
#include "runtime/forward/model_weights.h"
#include "runtime/forward/paged_kv_cache.h"
#include "runtime/model/model_config.h"

namespace pagedserve::forward {

class model_forward {
 public:
  model_forward(kernels::backend& backend, model_config config, model_weights weights);

  [[nodiscard]] const model_config& config() const { return config_; }
  [[nodiscard]] kernels::backend& backend() const { return backend_; }

  // The cache's layout must match the model (layers, kv heads, head_dim); every token id
  // must be below vocab_size. Both are the caller's invariants (abort otherwise).
  [[nodiscard]] forward_output run(const forward_batch& batch, paged_kv_cache& cache);

 private:
  struct step;  // one call's uploaded metadata and activation buffers

  void check_cache(const paged_kv_cache& cache) const;
  void attention_block(const step& s, std::int64_t layer, paged_kv_cache& cache);
  void mlp_block(const step& s, std::int64_t layer);
  [[nodiscard]] forward_output logits(const step& s, const batch_metadata& meta, bool all_rows);

  kernels::backend& backend_;
  model_config config_;
  model_weights weights_;
};

}  // namespace pagedserve::forward
