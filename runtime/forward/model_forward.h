#pragma once
// model_forward: the decoder-only transformer forward pass (llama, mistral, qwen2, qwen3 and
// the mixture-of-experts qwen2_moe, qwen3_moe, mixtral), written once against kernels::backend. One
// call runs a flattened batch through every layer, writes the new tokens' K/V into the paged cache,
// and produces logits:
//
//   h = embed(tokens); x = norm_in[0](h)
//   per layer l:  q, k, v = x Wq (+b), x Wk (+b), x Wv (+b)
//                 q, k = per-head rms_norm (qwen3); rope(q, k)
//                 cache[l] <- k, v;  a = paged_attention(q, cache[l]) Wo (+b)
//                 h += a; x = norm_post[l](h)
//                 m = (silu(x Wg) * x Wu) Wd;  h += m; x = norm_in[l+1](h) (final norm last)
//                 (a sparse layer: m = route(x Wr), fused_moe over the chosen experts,
//                  + sigmoid-gated shared expert: kernels/moe_ops.h)
//   logits = x[last rows] lm_head^T
//
// The residual adds are fused into the following rms_norm (add_rms_norm). Every step works
// in one forward_workspace (no allocation per step) and its index arrays reach the backend
// in one copy. Decode steps replay captured graphs when enable_decode_graphs() has captured
// them (backends that capture: CUDA) and run eagerly otherwise.
//
//   fwd.enqueue(batch, cache);            // returns at once on CUDA
//   sample_on_device(fwd.last_logits());  // or read them: fwd.wait(); copy_to_host(...)
//   fwd.enqueue(next_batch, cache);       // may follow at once: steps queue up in order
//   auto out = fwd.run(batch, cache);     // all of it, logits on the host
//
// Steps may be enqueued back to back without waiting: each step's inputs are packed into
// one of two pinned staging slots, and packing waits (a stream marker) until the copy out
// of that slot two steps ago has run. Tokens the previous step sampled on the device can
// feed the next one without the host seeing them (forward_batch::device_tokens).

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "kernels/backend.h"
#include "runtime/forward/batch_metadata.h"
#include "runtime/forward/forward_batch.h"
#include "runtime/forward/forward_workspace.h"
#include "runtime/forward/model_weights.h"
#include "runtime/forward/paged_kv_cache.h"
#include "runtime/model/model_config.h"

namespace pagedserve::forward {

class decode_graphs;
struct decode_graph_options;

// Host-side bounds of a step's attention, for launch geometry (kernels/ops.h).
struct attention_bounds {
  std::int32_t max_context_len = 0;
  std::int32_t max_query_len = 0;
};

class model_forward {
 public:
  model_forward(kernels::backend& backend, model_config config, model_weights weights);
  model_forward(const model_forward&) = delete;
  model_forward& operator=(const model_forward&) = delete;
  ~model_forward();

  [[nodiscard]] const model_config& config() const { return config_; }
  [[nodiscard]] const model_weights& weights() const { return weights_; }
  [[nodiscard]] kernels::backend& backend() const { return backend_; }
  [[nodiscard]] forward_workspace& workspace() { return workspace_; }
  // Tokens routed to each expert so far, [num_layers, num_experts] row-major, dense layers'
  // rows 0 (empty for a dense model), as u32 counters that wrap. Waits for the backend.
  [[nodiscard]] std::vector<std::int32_t> expert_load();
  // The same, as copied to the host after the forward of the enqueue that returned slot
  // `slot` (last_expert_load_slot()): valid once that step's work has run, until the enqueue
  // after next (two copies alternate, as the staging slots do). Empty for a dense model.
  [[nodiscard]] std::span<const std::int32_t> expert_load_copy(std::size_t slot) const;
  [[nodiscard]] std::size_t last_expert_load_slot() const { return last_expert_load_slot_; }

  // Enqueues the forward of `batch`; its last rows' logits stay on the backend
  // (last_logits()). The cache's layout must match the model (layers, kv heads, head_dim);
  // every token id must be below vocab_size; the previous enqueue must have been waited for
  // All of these are the caller's invariants (abort).
  void enqueue(const forward_batch& batch, paged_kv_cache& cache);
  // [num_sequences of the last enqueue, vocab] f32, on the backend.
  [[nodiscard]] kernels::tensor last_logits() const { return last_logits_; }
  // The last enqueue's forward_batch::trailer on the backend ([words] i32).
  [[nodiscard]] kernels::tensor last_trailer() const { return last_trailer_; }
  // The logits of rows `rows` (flattened token rows) of the last enqueue, [rows, vocab] f32
  // on the host; waits for the backend. The step must not have replayed a graph
  // (forward_batch::eager). Prompt logprobs read a prefill's positions this way, a few
  // rows at a time, without holding a whole chunk's logits.
  [[nodiscard]] std::vector<float> row_logits(std::span<const std::int32_t> rows);
  // The same rows' final hidden states (the final norm's output, HF's last_hidden_state) as
  // f32, [rows, hidden_size]: what embedding requests pool.
  [[nodiscard]] std::vector<float> row_hidden(std::span<const std::int32_t> rows);
  // Whether the last enqueue replayed a decode graph.
  [[nodiscard]] bool last_replayed_graph() const { return last_replayed_graph_; }
  // Waits until everything enqueued has run.
  void wait();

  // enqueue + wait, with the logits copied to the host (every row's with return_all_logits).
  [[nodiscard]] forward_output run(const forward_batch& batch, paged_kv_cache& cache);

  // The forward of a step whose packed inputs are already in workspace().views(shape)
  // (or will be, before the enqueued work runs). Enqueues only ops: graph capture records it.
  void enqueue_packed(const step_shape& shape, const attention_bounds& bounds,
                      paged_kv_cache& cache);

  // Packs `meta` (of `shape`, room reserved) with `batch`'s extras into the next staging
  // slot, enqueues the one copy to the backend, then the device tokens' scatter. Returns the
  // step's views; sets last_trailer(). Never while capturing.
  step_views send_inputs(const batch_metadata& meta, const step_shape& shape,
                         const forward_batch& batch);

  // Captures decode steps of every batch size of `options` for `cache` (decode_graphs.h);
  // later decode-only enqueues on that cache replay the graph of the next size up. Reserves
  // and freezes the workspace. Returns the number of graphs (0: the backend captures none).
  std::size_t enable_decode_graphs(paged_kv_cache& cache, const decode_graph_options& options);
  [[nodiscard]] const decode_graphs* graphs() const { return graphs_.get(); }

 private:
  // The workspace's final-norm rows `rows` of the last step, gathered (row_logits, row_hidden).
  [[nodiscard]] kernels::buffer gather_normed_rows(std::span<const std::int32_t> rows);
  void check(const paged_kv_cache& cache, const batch_metadata& meta) const;
  void attention_block(const step_views& s, const attention_bounds& bounds, std::int64_t layer,
                       paged_kv_cache& cache);
  void mlp_block(const step_views& s, std::int64_t layer);
  void sparse_mlp(const step_views& s, std::int64_t layer);

  kernels::backend& backend_;
  model_config config_;
  model_weights weights_;
  forward_workspace workspace_;
  // Tokens each expert of each sparse layer has run, [layers, E] i32 (MoE models only).
  kernels::buffer expert_load_;
  std::array<std::shared_ptr<void>, k_staging_slots> expert_load_host_;
  std::size_t last_expert_load_slot_ = 0;
  void copy_expert_load();
  std::unique_ptr<decode_graphs> graphs_;
  kernels::tensor last_logits_;
  bool skip_last_logits_ = false;  // forward_batch::only_all_logits of the enqueue running
  kernels::tensor last_trailer_;
  bool last_replayed_graph_ = false;
  std::int64_t last_num_tokens_ = 0;
  // staging_sent_[k]: recorded after the copy out of staging slot k.
  std::array<std::unique_ptr<kernels::stream_marker>, k_staging_slots> staging_sent_;
  std::size_t next_slot_ = 0;
};

}  // namespace pagedserve::forward
