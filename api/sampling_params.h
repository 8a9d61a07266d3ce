#pragma once
// sampling_params: how one sequence picks its next token. Field names and meanings follow
// vLLM's SamplingParams (and so the OpenAI API); validate() rejects what vLLM rejects.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "api/pooling_params.h"
#include "api/structured_outputs_params.h"
#include "common/result.h"
#include "common/types.h"

namespace pagedserve {

struct sampling_params {
  // How many completions share the prompt (vLLM's n).
  std::uint32_t n = 1;
  // Tokens to generate at most; the prompt and this must fit max_model_len.
  std::uint32_t max_tokens = 16;
  // Stop strings, matched on the text; the text ends before the match unless
  // include_stop_str_in_output.
  std::vector<std::string> stop{};
  // End generation; the token is emitted (and counted).
  std::vector<token_id> stop_token_ids{};
  // Keep going past the model's EOS ids (stop_token_ids still stop).
  bool ignore_eos = false;
  // Special tokens are left out of the streamed text.
  bool skip_special_tokens = true;
  // A matched stop string ends the text (it is not cut off).
  bool include_stop_str_in_output = false;
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
  // vLLM's prompt_logprobs: for every prompt position after the first, the logprob of the
  // prompt token there and this many top alternatives (raw distribution, as `logprobs`).
  // Absent: none. A sequence that asks for them skips the prefix cache's reads (every
  // position must be computed), as in vLLM.
  std::optional<std::int32_t> prompt_logprobs{};

  // Logits processing before the pipeline above (runtime/sampling/logits_processing.h).
  // OpenAI's penalties over the tokens generated so far: logit -= frequency_penalty * count
  // and -= presence_penalty once a token occurred. Both in [-2, 2]; 0 = off.
  float presence_penalty = 0.0f;
  float frequency_penalty = 0.0f;
  // HF's / vLLM's, over the prompt and the generated tokens: a token that occurred has a
  // positive logit divided by it and a negative one multiplied. > 0; 1 = off.
  float repetition_penalty = 1.0f;
  // OpenAI's logit_bias: (token, bias in [-100, 100]) added to the logit. Ids are unique;
  // checking them against the vocabulary is the engine's (it knows the vocabulary).
  std::vector<std::pair<token_id, float>> logit_bias{};
  // vLLM's min_tokens: EOS and the stop token ids cannot be sampled before this many tokens
  // were generated.
  std::uint32_t min_tokens = 0;
  // vLLM's allowed_token_ids: when not empty, every other token becomes -inf (first, before
  // the edits). Ids must be in the vocabulary (the engine checks, sorts and dedupes them).
  std::vector<token_id> allowed_token_ids{};
  // vLLM's bad_words as token sequences (the OpenAI layer tokenizes the words): a one-token
  // word is banned always; a longer one bans its last token while the generated tokens end
  // with the others (runtime/sampling/bad_words.h).
  std::vector<std::vector<token_id>> bad_words_token_ids{};
  // vLLM's structured_outputs: the text must match this constraint. Every step's logits are
  // masked (before everything above) to the tokens that keep it matchable; stop tokens only
  // where the text is complete. The engine compiles it (runtime/engine/grammar_compiler.h).
  std::optional<structured_outputs_params> structured_outputs{};
  // An embedding request (api/pooling_params.h): no token is generated; the prompt's pooled
  // hidden states come back in the first token_chunk's `embedding`. Needs n = 1 and no
  // logprobs or structured outputs. Mean and CLS pooling skip the prefix cache's reads
  // (every position must be computed); last pooling reads it.
  std::optional<pooling_params> pooling{};

  [[nodiscard]] bool is_greedy() const;
  [[nodiscard]] bool top_k_enabled() const { return top_k > 0; }
  [[nodiscard]] bool top_p_enabled() const { return top_p < 1.0f; }
  [[nodiscard]] bool min_p_enabled() const { return min_p > 0.0f; }
  // Whether logits processing changes this sequence's logits at all.
  [[nodiscard]] bool processes_logits() const {
    return has_penalties() || !logit_bias.empty() || min_tokens > 0 || !allowed_token_ids.empty() ||
           !bad_words_token_ids.empty();
  }
  [[nodiscard]] bool has_penalties() const {
    return presence_penalty != 0.0f || frequency_penalty != 0.0f || repetition_penalty != 1.0f;
  }

  // Ok, or invalid_argument naming the field, its allowed range and the value given.
  [[nodiscard]] status validate() const;
  // The part of validate() for bad_words and logit_bias (the knobs are sampling_knobs.h's).
  [[nodiscard]] status validate_processing() const;
};

inline constexpr float k_greedy_temperature_epsilon = 1e-5f;
// vLLM's default max_logprobs; OpenAI allows top_logprobs up to 20.
inline constexpr std::int32_t k_max_logprobs = 20;
// OpenAI's limit on |logit_bias| values.
inline constexpr float k_max_logit_bias = 100.0f;

}  // namespace pagedserve
