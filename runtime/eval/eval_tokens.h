#pragma once
// eval_tokens: the token ids that eval scores, one sequence per workload line, checked
// against the model before any forward runs. A "text" line is encoded with the model's
// tokenizer as a completion prompt is (add_special_tokens: the tokenizer's BOS handling);
// when the reference has a tokenizer too it must encode the line to the same ids, so both
// models are scored on exactly the same tokens.

#include <cstdint>
#include <span>
#include <vector>

#include "common/result.h"
#include "common/types.h"
#include "runtime/eval/eval_workload.h"
#include "runtime/tokenizer/tokenizer.h"

namespace pagedserve::eval {

struct token_limits {
  std::int64_t vocab_size = 0;
  std::int64_t max_len = 0;  // most tokens of one line (the context eval runs in)
  // Map each id to id % vocab_size instead of refusing ids past the vocabulary (as `pagedserve
  // bench offline` does with synthetic workloads). Negative ids are refused either way.
  bool wrap_token_ids = false;
};

struct eval_tokenizers {
  const tokenizer* model = nullptr;      // null: "text" lines are refused
  const tokenizer* reference = nullptr;  // null: no cross-check
};

// Errors (invalid_argument, naming the workload line): text without a tokenizer, text the two
// tokenizers encode differently, a token id outside [0, vocab_size), a line longer than
// max_len, a workload where no line has two tokens (nothing to score).
[[nodiscard]] result<std::vector<std::vector<token_id>>> workload_tokens(
    std::span<const workload_line> lines, const eval_tokenizers& tokenizers,
    const token_limits& limits);

// Positions teacher forcing scores: every token of a line but its first, summed over lines.
[[nodiscard]] std::uint64_t num_scored_positions(std::span<const std::vector<token_id>> lines);

}  // namespace pagedserve::eval
