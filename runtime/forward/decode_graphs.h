#pragma once
// decode_graphs: decode steps recorded once per batch size of a ladder and replayed (CUDA
// graphs), so a decode step costs one copy of its index arrays plus one graph launch instead
// of ~10 kernel launches per layer.
//
// A graph of size B is the forward of B sequences of one new token each, over block tables
// as wide as the longest context it serves, with attention bounds fixed at that context (the
// split count is then fixed too). A decode batch of n <= B sequences replays the graph of
// the smallest B >= n: rows n..B-1 are padding that decodes token 0 at position 0 into the
// cache's padding block, so they touch no sequence's memory; their logits are never read.
// Capture runs each shape eagerly once first (largest first, so every scratch buffer has
// reached its size), then records it; the workspace is frozen afterwards.

#include <cstdint>
#include <memory>
#include <vector>

#include "kernels/backend.h"
#include "runtime/forward/batch_metadata.h"
#include "runtime/forward/forward_batch.h"
#include "runtime/forward/paged_kv_cache.h"

namespace pagedserve::forward {

class model_forward;

struct decode_graph_options {
  std::vector<std::int64_t> batch_sizes;  // any order; duplicates ignored
  std::int64_t max_context_len = 0;       // the longest sequence a replay may serve
};

// vLLM's ladder: 1, 2, 4, then every multiple of 8 up to max_sequences (which is included).
[[nodiscard]] std::vector<std::int64_t> default_decode_batch_sizes(std::int64_t max_sequences);

class decode_graphs {
 public:
  // Null when the backend captures nothing (CPU) or no size is given.
  [[nodiscard]] static std::unique_ptr<decode_graphs> capture(model_forward& forward,
                                                              paged_kv_cache& cache,
                                                              const decode_graph_options& options);

  [[nodiscard]] const std::vector<std::int64_t>& sizes() const { return sizes_; }
  [[nodiscard]] std::int64_t max_context_len() const { return max_context_len_; }
  // The graph size a decode batch of n sequences replays (0: none is big enough).
  [[nodiscard]] std::int64_t padded_size(std::int64_t n) const;
  // Whether `meta` on `cache` can replay a graph: decodes only, few enough sequences, no
  // context longer than the graphs serve.
  [[nodiscard]] bool covers(const paged_kv_cache& cache, const batch_metadata& meta) const;
  // Enqueues the padded step's inputs (with `batch`'s extras: its device tokens sit in the
  // real rows, which come first) and the graph; returns the real rows' logits.
  [[nodiscard]] kernels::tensor enqueue(const batch_metadata& meta, const forward_batch& batch);
  [[nodiscard]] std::uint64_t num_replays() const { return num_replays_; }

 private:
  struct graph {
    std::int64_t size = 0;
    std::unique_ptr<kernels::captured_ops> ops;
  };

  decode_graphs(model_forward& forward, paged_kv_cache& cache, std::int64_t table_width);

  model_forward& forward_;
  paged_kv_cache& cache_;
  std::int64_t table_width_;
  std::int64_t max_context_len_;
  std::vector<std::int64_t> sizes_;  // ascending
  std::vector<graph> graphs_;        // same order
  std::uint64_t num_replays_ = 0;
};

}  // namespace pagedserve::forward
