#pragma once
// pooling_params: a request that asks for the prompt's embedding instead of a completion
// (vLLM's PoolingParams, for /v1/embeddings). The engine runs the prompt's prefill only: the
// step that computes its last position answers with the pooled final hidden states (after
// the model's final norm, HF's last_hidden_state) and the request ends there with no token
// generated, its KV blocks released with that step.

#include <cstdint>
#include <optional>
#include <string_view>

namespace pagedserve {

// How the prompt's hidden states become one vector (vLLM's pooling types):
//   last  the last position's (decoder embedding models: Qwen3-Embedding, e5-mistral)
//   mean  the mean over every position
//   cls   the first position's (BERT-style [CLS])
enum class pooling_type : std::uint8_t { last, mean, cls };

struct pooling_params {
  pooling_type type = pooling_type::last;
  // Matryoshka: keep the first `dimensions` values (before normalizing). Absent: all.
  std::optional<std::uint32_t> dimensions{};
  // Scale the vector to unit L2 norm (what embedding APIs return by default).
  bool normalize = true;
};

// "last" | "mean" | "cls" (the spelling of config keys and vLLM's --pooler-config).
[[nodiscard]] std::string_view to_string(pooling_type type);
[[nodiscard]] std::optional<pooling_type> pooling_type_from_string(std::string_view name);

}  // namespace pagedserve
