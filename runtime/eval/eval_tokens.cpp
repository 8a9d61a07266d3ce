#include "runtime/eval/eval_tokens.h"

#include <string>

namespace pagedserve::eval {
namespace {

error line_error(const workload_line& line, const std::string& what) {
  return make_error(error_code::invalid_argument,
                    "workload line " + std::to_string(line.line_number) + ": " + what);
}

result<std::vector<token_id>> encode_text(const workload_line& line,
                                          const eval_tokenizers& tokenizers) {
  if (tokenizers.model == nullptr) {
    return line_error(line,
                      "\"text\" needs a tokenizer and the model has none; give "
                      "\"prompt_token_ids\" instead (or --tokenizer)");
  }
  std::vector<token_id> ids = tokenizers.model->encode(*line.text, true);
  if (tokenizers.reference != nullptr && tokenizers.reference->encode(*line.text, true) != ids) {
    return line_error(line,
                      "the model's and the reference's tokenizers encode the text differently; "
                      "eval compares the two on the same tokens only");
  }
  if (ids.empty()) return line_error(line, "the text encodes to no token");
  return ids;
}

result<std::vector<token_id>> checked_ids(const workload_line& line, const token_limits& limits) {
  std::vector<token_id> ids;
  ids.reserve(line.token_ids->size());
  for (std::int64_t id : *line.token_ids) {
    if (limits.wrap_token_ids && id >= 0) id %= limits.vocab_size;
    if (id < 0 || id >= limits.vocab_size) {
      return line_error(line, "token id " + std::to_string(id) + " is outside the vocabulary [0, " +
                                  std::to_string(limits.vocab_size) + ")");
    }
    ids.push_back(static_cast<token_id>(id));
  }
  return ids;
}

result<std::vector<token_id>> line_tokens(const workload_line& line,
                                          const eval_tokenizers& tokenizers,
                                          const token_limits& limits) {
  auto ids = line.text ? encode_text(line, tokenizers) : checked_ids(line, limits);
  if (!ids) return ids.err();
  // A tokenizer's ids past the model's vocabulary would be a broken model folder: say so.
  for (const token_id id : *ids) {
    if (id >= limits.vocab_size) {
      return line_error(line, "the tokenizer gave id " + std::to_string(id) +
                                  ", outside the model's vocabulary [0, " +
                                  std::to_string(limits.vocab_size) + ")");
    }
  }
  if (static_cast<std::int64_t>(ids->size()) > limits.max_len) {
    return line_error(line, std::to_string(ids->size()) + " tokens exceed the context of " +
                                std::to_string(limits.max_len) +
                                " tokens (--max-model-len); eval does not split lines into "
                                "windows: shorten the line or raise --max-model-len");
  }
  return ids;
}

}  // namespace

result<std::vector<std::vector<token_id>>> workload_tokens(std::span<const workload_line> lines,
                                                           const eval_tokenizers& tokenizers,
                                                           const token_limits& limits) {
  std::vector<std::vector<token_id>> sequences;
  sequences.reserve(lines.size());
  for (const workload_line& line : lines) {
    auto ids = line_tokens(line, tokenizers, limits);
    if (!ids) return ids.err();
    sequences.push_back(std::move(*ids));
  }
  if (num_scored_positions(sequences) == 0) {
    return make_error(error_code::invalid_argument,
                      "nothing to score: every workload line has a single token (perplexity "
                      "scores each token after the first of its line)");
  }
  return sequences;
}

std::uint64_t num_scored_positions(std::span<const std::vector<token_id>> lines) {
  std::uint64_t n = 0;
  for (const auto& line : lines) n += line.empty() ? 0 : line.size() - 1;
  return n;
}

}  // namespace pagedserve::eval
