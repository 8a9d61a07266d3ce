#pragma once
// step_inputs: one step's index arrays (batch_metadata) packed back to back into one block
// of i32, so they reach the device in a single copy and every op reads a view of it:
//
//   | token_ids n | positions n | slot_mapping n | query_start s+1 | context_lens s |
//   | last_rows s | block_tables s * width |
//
// The offsets depend only on the step's shape (n tokens, s sequences, table width), so a
// captured graph, which bakes its views in, finds the same layout at every replay of its
// shape. Padding for a graph: pad_decode_batch adds rows that decode token 0 at position 0
// into a block no sequence owns.

#include <cstdint>
#include <span>

#include "runtime/forward/batch_metadata.h"

namespace pagedserve::forward {

struct step_shape {
  std::int64_t num_tokens = 0;
  std::int64_t num_sequences = 0;
  std::int64_t table_width = 0;  // block table entries per sequence

  friend bool operator==(const step_shape&, const step_shape&) = default;
};

struct step_offsets {
  std::int64_t token_ids = 0;
  std::int64_t positions = 0;
  std::int64_t slot_mapping = 0;
  std::int64_t query_start = 0;
  std::int64_t context_lens = 0;
  std::int64_t last_rows = 0;
  std::int64_t block_tables = 0;
  std::int64_t total = 0;  // i32 elements in all
};

[[nodiscard]] step_offsets offsets_of(const step_shape& shape);

// The shape of `meta` with its tables `table_width` wide (>= meta.max_blocks_per_sequence).
[[nodiscard]] step_shape shape_of(const batch_metadata& meta, std::int64_t table_width);

// Writes `meta` into dst[0, offsets_of(shape).total) in the layout above, tables padded with
// zeros to shape.table_width. The shape must be meta's (aborts otherwise).
void pack_step_inputs(const batch_metadata& meta, const step_shape& shape,
                      std::span<std::int32_t> dst);

// `meta` (decodes only: one new token per sequence) grown to `num_sequences` rows, each extra
// one decoding token 0 at position 0 into slot 0 of `padding_block`.
[[nodiscard]] batch_metadata pad_decode_batch(const batch_metadata& meta,
                                              std::int64_t num_sequences,
                                              std::int32_t padding_block, std::int64_t block_size);

}  // namespace pagedserve::forward
