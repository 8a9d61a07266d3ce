// model_step_executor's pooling (sampling_params::pooling, api/pooling_params.h). After a
// step's forward, the prompt positions the sequence's pooling reads have their final hidden
// states (the final norm's output, which stays in the workspace until the next enqueue) read
// back a few rows at a time (model_forward::row_hidden) and summed on the host in double;
// the first sample, which comes with the prompt's last position, takes the embedding. Like
// prompt logprobs, reading rows waits for the backend: such a step is not overlapped.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "runtime/worker/model_step_executor.h"

namespace pagedserve::detail {
namespace {

// At most this many floats per row_hidden call (64 MiB), at least one row.
constexpr std::size_t k_max_floats_per_read = std::size_t{1} << 24;

struct pooled_row {
  live_sequence* seq = nullptr;
  std::int32_t row = 0;  // in the step's flattened tokens
};

// The prompt positions in [first, end) that `s`'s pooling reads and has not read yet.
std::pair<std::size_t, std::size_t> positions_read(const live_sequence& s, std::size_t first,
                                                   std::size_t end) {
  const std::size_t last = s.num_prompt_tokens - 1;
  switch (s.params.pooling->type) {
    case pooling_type::last:
      return last >= first && last < end ? std::pair{last, last + 1} : std::pair{end, end};
    case pooling_type::cls:
      return first == 0 && end > 0 ? std::pair{std::size_t{0}, std::size_t{1}}
                                   : std::pair{end, end};
    case pooling_type::mean:
      break;
  }
  return {std::max(first, s.pooled_next), end};
}

std::vector<pooled_row> pooled_rows_of(const step_plan& plan,
                                       const std::vector<live_sequence*>& members) {
  std::vector<pooled_row> rows;
  std::int32_t token_row = 0;
  for (std::size_t i = 0; i < members.size(); ++i) {
    live_sequence* s = members[i];
    if (s == nullptr) continue;  // not in the batch
    const scheduled_sequence& entry = plan.scheduled[i];
    if (s->wants_pooled_rows()) {
      const std::size_t first = entry.first_position;
      const std::size_t end =
          std::min<std::size_t>(first + entry.num_scheduled_tokens, s->num_prompt_tokens);
      const auto [from, to] = positions_read(*s, first, end);
      for (std::size_t p = from; p < to; ++p) {
        rows.push_back({s, token_row + static_cast<std::int32_t>(p - first)});
      }
      s->pooled_next = std::max(s->pooled_next, end);
    }
    token_row += static_cast<std::int32_t>(entry.num_scheduled_tokens);
  }
  return rows;
}

}  // namespace

void model_step_executor::gather_pooled_rows(const step_plan& plan,
                                             const std::vector<live_sequence*>& members) {
  const std::vector<pooled_row> rows = pooled_rows_of(plan, members);
  if (rows.empty()) return;
  const auto hidden = static_cast<std::size_t>(forward_->config().hidden_size);
  const std::size_t per_read = std::max<std::size_t>(1, k_max_floats_per_read / hidden);
  std::vector<std::int32_t> indices;
  for (std::size_t begin = 0; begin < rows.size(); begin += per_read) {
    const std::size_t count = std::min(per_read, rows.size() - begin);
    indices.clear();
    for (std::size_t k = 0; k < count; ++k) indices.push_back(rows[begin + k].row);
    const std::vector<float> states = forward_->row_hidden(indices);
    for (std::size_t k = 0; k < count; ++k) {
      std::vector<double>& sum = rows[begin + k].seq->pooled_sum;
      sum.resize(hidden, 0.0);
      const std::span<const float> row = std::span<const float>(states).subspan(k * hidden, hidden);
      for (std::size_t j = 0; j < hidden; ++j) sum[j] += row[j];
    }
  }
}

// Mean pooling divides by the prompt's length (every position was read: the sequence skips
// the prefix cache); then the Matryoshka cut, then the L2 normalisation.
void model_step_executor::take_embedding(live_sequence& s, answer& a) {
  if (!s.params.pooling || s.embedding_sent) return;
  s.embedding_sent = true;
  const pooling_params& p = *s.params.pooling;
  std::vector<double> v = std::exchange(s.pooled_sum, {});
  if (p.type == pooling_type::mean) {
    for (double& x : v) x /= static_cast<double>(s.num_prompt_tokens);
  }
  if (p.dimensions && *p.dimensions < v.size()) v.resize(*p.dimensions);
  double scale = 1.0;
  if (p.normalize) {
    double norm = 0.0;
    for (const double x : v) norm += x * x;
    // As torch.nn.functional.normalize: the norm is kept at least 1e-12.
    scale = 1.0 / std::max(std::sqrt(norm), 1e-12);
  }
  a.embedding.resize(v.size());
  for (std::size_t j = 0; j < v.size(); ++j) a.embedding[j] = static_cast<float>(v[j] * scale);
}

}  // namespace pagedserve::detail
