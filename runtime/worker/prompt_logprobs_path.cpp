// model_step_executor's prompt logprobs (sampling_params::prompt_logprobs). After a step's
// forward, the prompt positions it computed that predict a prompt token have their rows'
// logits read back a few rows at a time (model_forward::row_logits) and turned into
// logprobs on the host; the sequence keeps them until its first sample carries them out.
// Reading the rows waits for the backend: a step with prompt logprobs is not overlapped.

#include <algorithm>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "runtime/worker/model_step_executor.h"

namespace pagedserve::detail {
namespace {

// At most this many logits per row_logits call (64 MiB of f32), at least one row.
constexpr std::size_t k_max_logits_per_read = std::size_t{1} << 24;

struct prompt_row {
  live_sequence* seq = nullptr;
  std::int32_t row = 0;      // in the step's flattened tokens
  std::size_t position = 0;  // its logits give the logprobs of the token at position + 1
};

// The rows of the step that give a prompt position's logprobs not reported yet.
std::vector<prompt_row> prompt_rows_of(const step_plan& plan,
                                       const std::vector<live_sequence*>& members) {
  std::vector<prompt_row> rows;
  std::int32_t token_row = 0;
  for (std::size_t i = 0; i < members.size(); ++i) {
    live_sequence* s = members[i];
    if (s == nullptr) continue;  // not in the batch
    const scheduled_sequence& entry = plan.scheduled[i];
    if (s->wants_prompt_logprobs()) {
      const std::size_t first = entry.first_position;
      const std::size_t end =
          std::min<std::size_t>(first + entry.num_scheduled_tokens, s->num_prompt_tokens - 1);
      for (std::size_t p = std::max(first, s->prompt_logprobs_next); p < end; ++p) {
        rows.push_back({s, token_row + static_cast<std::int32_t>(p - first), p});
      }
    }
    token_row += static_cast<std::int32_t>(entry.num_scheduled_tokens);
  }
  return rows;
}

}  // namespace

bool model_step_executor::reads_prompt_rows(const std::vector<live_sequence*>& members) {
  return std::any_of(members.begin(), members.end(), [](const live_sequence* s) {
    return s != nullptr && (s->wants_prompt_logprobs() || s->wants_pooled_rows());
  });
}

void model_step_executor::gather_prompt_logprobs(const step_plan& plan,
                                                 const std::vector<live_sequence*>& members) {
  const std::vector<prompt_row> rows = prompt_rows_of(plan, members);
  const auto vocab = static_cast<std::size_t>(vocab_size_);
  const std::size_t per_read = std::max<std::size_t>(1, k_max_logits_per_read / vocab);
  std::vector<std::int32_t> indices;
  for (std::size_t begin = 0; begin < rows.size(); begin += per_read) {
    const std::size_t count = std::min(per_read, rows.size() - begin);
    indices.clear();
    for (std::size_t k = 0; k < count; ++k) indices.push_back(rows[begin + k].row);
    const std::vector<float> logits = forward_->row_logits(indices);
    for (std::size_t k = 0; k < count; ++k) {
      const prompt_row& r = rows[begin + k];
      live_sequence& s = *r.seq;
      const std::span<const float> row = std::span<const float>(logits).subspan(k * vocab, vocab);
      s.prompt_logprobs.push_back(
          compute_logprobs(row, s.tokens[r.position + 1], *s.params.prompt_logprobs));
      s.prompt_logprobs_next = r.position + 1;
    }
  }
}

// A sequence samples only once its whole prompt is computed, so its first sampling answer
// takes every prompt position's logprobs.
void model_step_executor::take_prompt_logprobs(live_sequence& s, answer& a) {
  if (!s.params.prompt_logprobs || s.prompt_logprobs_sent) return;
  a.prompt_logprobs = std::exchange(s.prompt_logprobs, {});
  s.prompt_logprobs_sent = true;
}

}  // namespace pagedserve::detail
