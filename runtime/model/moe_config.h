#pragma once
// moe_config: the mixture-of-experts part of a model_config (qwen2_moe, qwen3_moe, mixtral).
// A sparse layer replaces the MLP with a router and `num_experts` expert MLPs, of which each
// token runs `top_k`:
//
//   p = softmax(x Wr^T) over all experts; keep the top_k; (renormalize) divide them by their sum
//   y = sum_k p_k * down_e(silu(gate_e x) * up_e x)           (+ the shared expert, qwen2_moe:)
//   y += sigmoid(x . w_shared_gate) * shared_down(silu(shared_gate x) * shared_up x)
//
// A model without experts has num_experts 0; its every layer is dense.

#include <cstdint>
#include <vector>

namespace pagedserve {

struct moe_config {
  std::int64_t num_experts = 0;               // "num_experts" (4.x, qwen) or "num_local_experts"
  std::int64_t top_k = 0;                     // "num_experts_per_tok"
  std::int64_t expert_intermediate_size = 0;  // moe_intermediate_size (mixtral: intermediate_size)
  // Divide the top_k probabilities by their sum (qwen: norm_topk_prob; mixtral: always).
  bool renormalize = false;
  std::int64_t shared_expert_intermediate_size = 0;  // 0: no shared expert
  std::int64_t decoder_sparse_step = 1;
  std::vector<std::int64_t> mlp_only_layers;  // layers that keep a dense MLP

  [[nodiscard]] bool enabled() const { return num_experts > 0; }
  [[nodiscard]] bool has_shared_expert() const { return shared_expert_intermediate_size > 0; }
  // HF's rule (Qwen2Moe/Qwen3Moe DecoderLayer): layer i is sparse iff it is not in
  // mlp_only_layers and (i + 1) % decoder_sparse_step == 0.
  [[nodiscard]] bool is_sparse_layer(std::int64_t layer) const;

  friend bool operator==(const moe_config&, const moe_config&) = default;
};

}  // namespace pagedserve
