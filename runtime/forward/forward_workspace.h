#pragma once
// forward_workspace: the backend memory a forward call works in, allocated for the largest
// step seen (or reserved up front) and reused by every later step, so a step allocates
// nothing: the packed index arrays (step_inputs.h) followed by the step's extras (device
// token pairs, the trailer: forward_batch.h), two pinned host copies of them (a step is
// packed while the previous one's copy may still be queued), the activations of every layer
// and the last rows' logits. A captured graph bakes these addresses in; freeze() makes a
// later growth a broken invariant instead of a silent reallocation under the graph.

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "kernels/backend.h"
#include "runtime/forward/step_inputs.h"
#include "runtime/model/model_config.h"

namespace pagedserve::forward {

// Words of forward_batch::trailer one sequence may bring (a kernels::sampling_row is 18).
inline constexpr std::int64_t k_trailer_words_per_sequence = 20;
// Pinned copies of the inputs: steps packed while earlier copies may still be queued.
inline constexpr std::size_t k_staging_slots = 2;

// Where a step's extras sit behind its packed arrays (even offsets: the trailer holds
// 8-byte fields).
struct extras_offsets {
  std::int64_t pairs = 0;    // device_token pairs, 2 words each
  std::int64_t trailer = 0;  // the trailer words
  std::int64_t total = 0;    // packed arrays + extras, i32 elements
};
[[nodiscard]] extras_offsets extras_of(const step_shape& shape, std::int64_t num_device_tokens,
                                       std::int64_t trailer_words);

// Views of one step's share of the workspace (rows [0, n) or [0, s)).
struct step_views {
  kernels::tensor inputs;  // the packed arrays, [offsets_of(shape).total] i32
  kernels::tensor token_ids, positions, slot_mapping, query_start, context_lens, last_rows;
  kernels::tensor block_tables;  // [s, table_width]
  kernels::tensor hidden;        // residual stream [n, hidden]
  kernels::tensor normed;        // input of the next projection [n, hidden]
  kernels::tensor q, k, v, attn;
  kernels::tensor proj;      // o_proj / down_proj output [n, hidden]
  kernels::tensor gate, up;  // [n, the larger of the dense MLP's and the shared expert's size]
  // Sparse layers (MoE models only; empty otherwise).
  kernels::tensor router_logits;  // [n, E] f32
  kernels::tensor topk_ids;       // [n, top_k] i32
  kernels::tensor topk_weights;   // [n, top_k] f32
  kernels::tensor moe_scratch;    // u8, backend::fused_moe_scratch_bytes
  kernels::tensor shared_out;     // [n, hidden]: the shared expert's output
  kernels::tensor shared_gate;    // [n, 1]: its gate logit
  kernels::tensor last_hidden;    // [s, hidden]
  kernels::tensor logits;         // [s, vocab] f32
};

class forward_workspace {
 public:
  forward_workspace(kernels::backend& backend, const model_config& config);

  // Room for steps of up to these sizes (grows, never shrinks). Growing waits for the
  // backend first: the old buffers are freed, and a step in flight may still use them.
  void reserve(std::int64_t max_tokens, std::int64_t max_sequences, std::int64_t table_width);
  void reserve(const step_shape& shape) {
    reserve(shape.num_tokens, shape.num_sequences, shape.table_width);
  }
  // After this, a reserve() beyond the current room aborts (graphs hold the addresses).
  void freeze() { frozen_ = true; }

  [[nodiscard]] step_views views(const step_shape& shape) const;
  // The backend's copy of [offset, offset + count) of the inputs block, within the room
  // (the extras of a step: extras_of).
  [[nodiscard]] kernels::tensor inputs_range(std::int64_t offset, std::int64_t count) const;
  // Pinned host memory for `words` words of a step's inputs, in slot `slot`
  // (< k_staging_slots); within the room reserved.
  [[nodiscard]] std::span<std::int32_t> staging(std::size_t slot, std::int64_t words) const;
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
  void allocate_moe();

  kernels::buffer inputs_, hidden_, normed_, q_, k_, v_, attn_, proj_, gate_, up_, last_hidden_,
      logits_;
  kernels::buffer router_logits_, topk_ids_, topk_weights_, moe_scratch_, shared_out_, shared_gate_;
  std::array<std::shared_ptr<void>, k_staging_slots> staging_;
  std::int64_t staging_ints_ = 0;
};

}  // namespace pagedserve::forward
