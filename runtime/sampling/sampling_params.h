#pragma once
// sampling_params: how one sequence picks its next token. Field names and meanings follow
// vLLM's SamplingParams (and so the OpenAI API); validate() rejects what vLLM rejects.

#include <cstdint>
#include <optional>

#include "common/result.h"

namespace pagedserve {

struct sampling_params {
  // Logits are divided by this. 0 means greedy (argmax); values below
  // k_greedy_temperature_epsilon count as 0, as in vLLM, so 1/temperature stays finite.
  float temperature = 1.0f;
  // Nucleus: keep the smallest set of most likely tokens whose mass reaches top_p. 1 = off.
  float top_p = 1.0f;
  // Keep only the top_k most likely tokens. 0 or -1 (vLLM's spelling) = off.
  std::int32_t top_k = 0;
  // Drop tokens whose probability is below min_p times the most likely token's. 0 = off.
  float min_p = 0.0f;
  // Fixes the random stream (see sampler_state). Absent: a seed is drawn at state creation.
  std::optional<std::uint64_t> seed{};
  // Number of top (token, logprob) pairs to report per generated token (OpenAI's
  // top_logprobs; vLLM's SamplingParams.logprobs). Absent: no logprobs at all.
  std::optional<std::int32_t> logprobs{};

  [[nodiscard]] bool is_greedy() const;
  [[nodiscard]] bool top_k_enabled() const { return top_k > 0; }
  [[nodiscard]] bool top_p_enabled() const { return top_p < 1.0f; }
  [[nodiscard]] bool min_p_enabled() const { return min_p > 0.0f; }

  // Ok, or invalid_argument naming the field, its allowed range and the value given.
  [[nodiscard]] status validate() const;
};

inline constexpr float k_greedy_temperature_epsilon = 1e-5f;
// vLLM's default max_logprobs; OpenAI allows top_logprobs up to 20.
inline constexpr std::int32_t k_max_logprobs = 20;

}  // namespace pagedserve
