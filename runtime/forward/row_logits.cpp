// model_forward::row_logits and row_hidden: chosen rows' logits of the step just enqueued,
// for prompt logprobs, and their final hidden states, for embeddings. The final norm's output
// of every row stays in the workspace until the next enqueue, so the lm_head runs again over
// the rows asked for only.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <vector>

#include "runtime/forward/model_forward.h"
#include "runtime/model/dtype.h"

namespace pagedserve::forward {
namespace {

[[noreturn]] void broken(const char* what) {
  std::fprintf(stderr, "model_forward: %s\n", what);
  std::abort();
}

}  // namespace

using kernels::buffer;
using kernels::dtype;

buffer model_forward::gather_normed_rows(std::span<const std::int32_t> rows) {
  if (last_replayed_graph_) broken("row reads after a replayed graph");
  for (const std::int32_t row : rows) {
    if (row < 0 || row >= last_num_tokens_) broken("row reads: a row outside the last step");
  }
  const auto num_rows = static_cast<std::int64_t>(rows.size());
  const step_views v = workspace_.views({last_num_tokens_, 0, 0});
  buffer indices = backend_.allocate(dtype::i32, {num_rows});
  backend_.copy_from_host(indices.view(), rows.data());
  buffer hidden = backend_.allocate(v.normed.type, {num_rows, config_.hidden_size});
  backend_.gather_rows({hidden.view(), v.normed, indices.view()});
  return hidden;
}

std::vector<float> model_forward::row_hidden(std::span<const std::int32_t> rows) {
  const auto width = static_cast<std::size_t>(config_.hidden_size);
  std::vector<float> out(rows.size() * width);
  if (rows.empty()) return out;
  const buffer hidden = gather_normed_rows(rows);
  if (hidden.view().type == dtype::f32) {
    backend_.copy_to_host(out.data(), hidden.view());
    return out;
  }
  std::vector<std::uint16_t> bits(out.size());
  backend_.copy_to_host(bits.data(), hidden.view());
  const bool bf16 = hidden.view().type == dtype::bf16;
  for (std::size_t i = 0; i < bits.size(); ++i) {
    out[i] = bf16 ? bf16_to_f32(bits[i]) : f16_to_f32(bits[i]);
  }
  return out;
}

std::vector<float> model_forward::row_logits(std::span<const std::int32_t> rows) {
  const auto num_rows = static_cast<std::int64_t>(rows.size());
  std::vector<float> logits(rows.size() * static_cast<std::size_t>(config_.vocab_size));
  if (rows.empty()) return logits;
  const buffer hidden = gather_normed_rows(rows);
  buffer out = backend_.allocate(dtype::f32, {num_rows, config_.vocab_size});
  backend_.linear(weights_.lm_head.params(out.view(), hidden.view(), {}));
  backend_.copy_to_host(logits.data(), out.view());
  return logits;
}

}  // namespace pagedserve::forward
