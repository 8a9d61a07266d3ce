#include "runtime/forward/decode_graphs.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "common/num_blocks.h"
#include "runtime/forward/model_forward.h"
#include "runtime/forward/step_inputs.h"

namespace pagedserve::forward {

std::vector<std::int64_t> default_decode_batch_sizes(std::int64_t max_sequences) {
  std::vector<std::int64_t> sizes;
  for (std::int64_t s : {1, 2, 4}) {
    if (s <= max_sequences) sizes.push_back(s);
  }
  for (std::int64_t s = 8; s <= max_sequences; s += 8) sizes.push_back(s);
  if (sizes.empty() || sizes.back() != max_sequences) sizes.push_back(max_sequences);
  return sizes;
}

decode_graphs::decode_graphs(model_forward& forward, paged_kv_cache& cache,
                             std::int64_t table_width)
    : forward_(forward),
      cache_(cache),
      table_width_(table_width),
      max_context_len_(table_width * cache.layout().block_size) {}

std::unique_ptr<decode_graphs> decode_graphs::capture(model_forward& forward, paged_kv_cache& cache,
                                                      const decode_graph_options& options) {
  std::vector<std::int64_t> sizes = options.batch_sizes;
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  std::erase_if(sizes, [](std::int64_t s) { return s <= 0; });
  if (sizes.empty() || options.max_context_len <= 0) return nullptr;
  const std::int64_t block_size = cache.layout().block_size;
  const std::int64_t width = num_blocks_for(options.max_context_len, block_size);
  std::unique_ptr<decode_graphs> graphs(new decode_graphs(forward, cache, width));
  graphs->sizes_ = sizes;

  kernels::backend& backend = forward.backend();
  forward_workspace& workspace = forward.workspace();
  workspace.reserve(sizes.back(), sizes.back(), width);
  const attention_bounds bounds{static_cast<std::int32_t>(graphs->max_context_len_), 1};
  std::vector<graph> recorded(sizes.size());
  for (std::size_t k = sizes.size(); k-- > 0;) {  // largest first: scratch reaches full size
    const std::int64_t size = sizes[k];
    const step_shape shape{size, size, width};
    // Padding rows only: any inputs will do for the warm-up and for the recording.
    const batch_metadata padding = pad_decode_batch(
        batch_metadata{}, size, static_cast<std::int32_t>(cache.padding_block()), block_size);
    forward.send_inputs(padding, shape, forward_batch{});
    forward.enqueue_packed(shape, bounds, cache);
    backend.synchronize();
    recorded[k].size = size;
    recorded[k].ops = backend.capture([&] { forward.enqueue_packed(shape, bounds, cache); });
    if (recorded[k].ops == nullptr) return nullptr;
  }
  workspace.freeze();
  graphs->graphs_ = std::move(recorded);
  return graphs;
}

std::int64_t decode_graphs::padded_size(std::int64_t n) const {
  const auto it = std::lower_bound(sizes_.begin(), sizes_.end(), n);
  return it == sizes_.end() ? 0 : *it;
}

bool decode_graphs::covers(const paged_kv_cache& cache, const batch_metadata& meta) const {
  return &cache == &cache_ && meta.num_tokens == meta.num_sequences && meta.num_sequences > 0 &&
         padded_size(meta.num_sequences) != 0 && meta.max_blocks_per_sequence <= table_width_ &&
         meta.max_context_len <= max_context_len_;
}

kernels::tensor decode_graphs::enqueue(const batch_metadata& meta, const forward_batch& batch) {
  const std::int64_t size = padded_size(meta.num_sequences);
  const auto it = std::find_if(graphs_.begin(), graphs_.end(),
                               [size](const graph& g) { return g.size == size; });
  if (size == 0 || it == graphs_.end()) {
    std::fprintf(stderr, "decode_graphs: no graph for a batch of %lld sequences\n",
                 static_cast<long long>(meta.num_sequences));
    std::abort();
  }
  const step_shape shape{size, size, table_width_};
  const batch_metadata padded = pad_decode_batch(
      meta, size, static_cast<std::int32_t>(cache_.padding_block()), cache_.layout().block_size);
  const step_views views = forward_.send_inputs(padded, shape, batch);
  it->ops->replay();
  ++num_replays_;
  return views.logits.rows(0, meta.num_sequences);
}

}  // namespace pagedserve::forward
