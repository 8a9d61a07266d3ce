// model_forward::row_logits: chosen rows' logits of the step just enqueued, for prompt
// logprobs. The final norm's output of every row stays in the workspace until the next
// enqueue, so the lm_head runs again over the rows asked for only.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <vector>

#include "runtime/forward/model_forward.h"

namespace pagedserve::forward {
namespace {

[[noreturn]] void broken(const char* what) {
  std::fprintf(stderr, "model_forward: %s\n", what);
  std::abort();
}

}  // namespace

using kernels::buffer;
using kernels::dtype;

std::vector<float> model_forward::row_logits(std::span<const std::int32_t> rows) {
  const auto num_rows = static_cast<std::int64_t>(rows.size());
  std::vector<float> logits(rows.size() * static_cast<std::size_t>(config_.vocab_size));
  if (rows.empty()) return logits;
  if (last_replayed_graph_) broken("row_logits after a replayed graph");
  for (const std::int32_t row : rows) {
    if (row < 0 || row >= last_num_tokens_) broken("row_logits: row outside the last step");
  }
  const step_views v = workspace_.views({last_num_tokens_, 0, 0});
  buffer indices = backend_.allocate(dtype::i32, {num_rows});
  backend_.copy_from_host(indices.view(), rows.data());
  buffer hidden = backend_.allocate(v.normed.type, {num_rows, config_.hidden_size});
  buffer out = backend_.allocate(dtype::f32, {num_rows, config_.vocab_size});
  backend_.gather_rows({hidden.view(), v.normed, indices.view()});
  backend_.linear(weights_.lm_head.params(out.view(), hidden.view(), {}));
  backend_.copy_to_host(logits.data(), out.view());
  return logits;
}

}  // namespace pagedserve::forward
