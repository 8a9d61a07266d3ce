#pragma once
// forward_workspace: the backend memory a forward call works in, allocated for the largest
// step seen (or reserved up front) and reused by every later step, so a step allocates
// nothing: the packed index arrays (step_inputs.h) and a pinned host copy of them, the
// activations of every layer and the last rows' logits. A captured graph bakes these
// addresses in; freeze() makes a later growth a broken invariant instead of a silent
// reallocation under the graph.

#include <cstdint>
#include <memory>
#include <span>

#include "kernels/backend.h"
#include "runtime/forward/step_inputs.h"
#include "runtime/model/model_config.h"

namespace pagedserve::forward {

// Views of one step's share of the workspace (rows [0, n) or [0, s)).
struct step_views {
  kernels::tensor inputs;  // the packed arrays, [offsets_of(shape).total] i32
  kernels::tensor token_ids, positions, slot_mapping, query_start, context_lens, last_rows;
  kernels::tensor block_tables;  // [s, table_width]
  kernels::tensor hidden;        // residual stream [n, hidden]
  kernels::tensor normed;        // input of the next projection [n, hidden]
  kernels::tensor q, k, v, attn;
  kernels::tensor proj;  // o_proj / down_proj output [n, hidden]
  kernels::tensor gate, up;
  kernels::tensor last_hidden;  // [s, hidden]
  kernels::tensor logits;       // [s, vocab] f32
};

class forward_workspace {
 public:
  forward_workspace(kernels::backend& backend, const model_config& config);

  // Room for steps of up to these sizes (grows, never shrinks). Growing frees the old
  // buffers: the device must not be using them (each step's caller waits before the next).
  void reserve(std::int64_t max_tokens, std::int64_t max_sequences, std::int64_t table_width);
  void reserve(const step_shape& shape) {
    reserve(shape.num_tokens, shape.num_sequences, shape.table_width);
  }
  // After this, a reserve() beyond the current room aborts (graphs hold the addresses).
  void freeze() { frozen_ = true; }

  [[nodiscard]] step_views views(const step_shape& shape) const;
  // Pinned host memory for the packed arrays of a step of `shape` (reserve()d).
  [[nodiscard]] std::span<std::int32_t> staging(const step_shape& shape) const;
  // Backend memory this workspace holds now.
  [[nodiscard]] std::int64_t device_bytes() const;

 private:
  void allocate();

  kernels::backend& backend_;
  model_config config_;
  std::int64_t max_tokens_ = 0;
  std::int64_t max_sequences_ = 0;
  std::int64_t table_width_ = 0;
  bool frozen_ = false;
  kernels::buffer inputs_, hidden_, normed_, q_, k_, v_, attn_, proj_, gate_, up_, last_hidden_,
      logits_;
  std::shared_ptr<void> staging_;
  std::int64_t staging_ints_ = 0;
};

}  // namespace pagedserve::forward
