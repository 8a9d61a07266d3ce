#pragma once
// batch_metadata: the index arrays the ops need for a forward_batch, built on the host and
// uploaded once per step. For the flattened tokens t (sequence s, offset j):
//   token_ids[t], positions[t] = num_computed_tokens(s) + j,
//   slot_mapping[t] = table(s)[pos / block_size] * block_size + pos % block_size;
// per sequence: query_start (prefix sums of new-token counts), context_lens (cached tokens
// after this step), block_tables padded to the longest table, last_rows (its last token).

#include <cstdint>
#include <vector>

#include "runtime/forward/forward_batch.h"

namespace pagedserve::forward {

struct batch_metadata {
  std::int64_t num_tokens = 0;
  std::int64_t num_sequences = 0;
  std::int64_t max_blocks_per_sequence = 0;
  std::int32_t max_context_len = 0;
  std::vector<std::int32_t> token_ids;
  std::vector<std::int32_t> positions;
  std::vector<std::int32_t> slot_mapping;
  std::vector<std::int32_t> query_start;   // num_sequences + 1
  std::vector<std::int32_t> context_lens;  // num_sequences
  std::vector<std::int32_t> block_tables;  // num_sequences * max_blocks_per_sequence
  std::vector<std::int32_t> last_rows;     // num_sequences
};

// Aborts when a sequence has no new tokens or its block table is too short: the caller
// (scheduler / block manager) guarantees both.
[[nodiscard]] batch_metadata build_batch_metadata(const forward_batch& batch,
                                                  std::int64_t block_size);

}  // namespace pagedserve::forward
