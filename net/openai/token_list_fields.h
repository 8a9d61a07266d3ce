#pragma once
// vLLM's request fields that restrict which tokens may be sampled (runtime/sampling/
// logits_processing.h step 0 and bad_words.h):
//   allowed_token_ids  a non-empty list of token ids of the vocabulary: only these
//   bad_words          strings never to generate, tokenized as vLLM does (below)
// Bad values are 400s naming the field.

#include "net/openai/api_request.h"
#include "net/openai/body_reader.h"

namespace pagedserve::net {

// At most this many bad words, each at most k_max_bad_word_bytes.
inline constexpr std::size_t k_max_bad_words = 128;
inline constexpr std::size_t k_max_bad_word_bytes = 1024;

void read_token_list_fields(body_reader& reader, const model_context& model, sampling_params& s);

// vLLM's SamplingParams bad_words tokenization: each word without leading spaces, encoded
// without special tokens; then " " + the word too, kept when it starts with another token
// and has as many tokens (the word as it reads after a space, as a separate sequence).
[[nodiscard]] std::vector<std::vector<token_id>> bad_words_token_ids(
    const std::vector<std::string>& words, const tokenizer& tok);

}  // namespace pagedserve::net
