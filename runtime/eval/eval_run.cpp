#include "runtime/eval/eval_run.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>

#include "runtime/eval/sequence_prefill.h"

namespace pagedserve::eval {
namespace {

std::int64_t longest(std::span<const std::vector<token_id>> lines) {
  std::size_t n = 0;
  for (const auto& line : lines) n = std::max(n, line.size());
  return static_cast<std::int64_t>(n);
}

// Scores the chunk's rows: row j is position start + j and predicts the token after it; the
// line's last position predicts nothing.
void score_chunk(std::span<const token_id> line, std::int64_t start, std::int64_t count,
                 const forward::forward_output& model_out,
                 const forward::forward_output* reference_out, eval_accumulator& acc) {
  for (std::int64_t j = 0; j < count; ++j) {
    const auto next = static_cast<std::size_t>(start + j + 1);
    if (next >= line.size()) break;
    const auto row = static_cast<std::size_t>(j);
    if (reference_out == nullptr) {
      acc.add_position(model_out.row(row), line[next]);
    } else {
      acc.add_position(model_out.row(row), reference_out->row(row), line[next]);
    }
  }
}

void check_vocabularies(const forward::model_forward& model,
                        const forward::model_forward* reference) {
  if (reference != nullptr && reference->config().vocab_size != model.config().vocab_size) {
    std::fprintf(stderr, "run_eval: the reference's vocabulary differs from the model's\n");
    std::abort();
  }
}

}  // namespace

std::int64_t chunk_tokens(const eval_run_options& options, std::int64_t vocab_size) {
  const std::int64_t row_bytes = vocab_size * static_cast<std::int64_t>(sizeof(float));
  return std::max<std::int64_t>(1,
                                std::min(options.chunk_size, k_max_chunk_logits_bytes / row_bytes));
}

eval_summary run_eval(forward::model_forward& model, forward::model_forward* reference,
                      std::span<const std::vector<token_id>> lines,
                      const eval_run_options& options) {
  check_vocabularies(model, reference);
  const std::int64_t max_tokens = longest(lines);
  sequence_prefill model_prefill(model, max_tokens, options.block_size, options.kv_cache_dtype);
  std::optional<sequence_prefill> reference_prefill;
  if (reference != nullptr) reference_prefill.emplace(*reference, max_tokens, options.block_size);

  const std::int64_t chunk = chunk_tokens(options, model.config().vocab_size);
  eval_accumulator acc;
  for (const std::vector<token_id>& line : lines) {
    acc.add_line();
    const auto length = static_cast<std::int64_t>(line.size());
    for (std::int64_t start = 0; start < length; start += chunk) {
      const std::int64_t count = std::min(chunk, length - start);
      const forward::forward_output model_out = model_prefill.run_chunk(line, start, count);
      if (!reference_prefill) {
        score_chunk(line, start, count, model_out, nullptr, acc);
        continue;
      }
      const forward::forward_output reference_out =
          reference_prefill->run_chunk(line, start, count);
      score_chunk(line, start, count, model_out, &reference_out, acc);
    }
  }
  return acc.summary();
}

}  // namespace pagedserve::eval
