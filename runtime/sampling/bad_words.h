#pragma once
// bad_words: vLLM's SamplingParams.bad_words applied to token sequences. Each word is a
// token sequence; for the next token of a sequence that generated `generated`:
//   - a one-token word is banned always;
//   - a longer word bans its last token when `generated` ends with its other tokens.
// Only generated tokens count (as in vLLM V1): a word begun in the prompt is not completed
// into a ban. Bans become logit edits of -inf (logits_processing.h).

#include <span>
#include <vector>

#include "common/types.h"

namespace pagedserve {

// The tokens banned now, ascending, each once.
[[nodiscard]] std::vector<token_id> bad_word_bans(
    const std::vector<std::vector<token_id>>& bad_words, std::span<const token_id> generated);

// Whether any word has more than one token (its ban depends on the last tokens sampled).
[[nodiscard]] bool has_multi_token_bad_words(const std::vector<std::vector<token_id>>& bad_words);

}  // namespace pagedserve
