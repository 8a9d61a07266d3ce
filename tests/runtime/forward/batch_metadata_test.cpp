// build_batch_metadata: positions, slots, prefix sums and padded tables of a mixed batch.

#include <gtest/gtest.h>

#include <vector>

#include "runtime/forward/batch_metadata.h"

namespace pagedserve::forward {
namespace {

TEST(batch_metadata, mixed_chunk_and_decode_map_tokens_to_their_slots) {
  const std::vector<token_id> chunk = {5, 6, 7};  // positions 2..4 of a sequence
  const std::vector<token_id> decode = {9};       // position 5 of another
  const std::vector<block_id> table_a = {block_id(7), block_id(3)};
  const std::vector<block_id> table_b = {block_id(1), block_id(4), block_id(0)};
  forward_batch batch;
  batch.sequences = {{chunk, 2, table_a}, {decode, 5, table_b}};
  const batch_metadata m = build_batch_metadata(batch, 4);

  EXPECT_EQ(m.num_tokens, 4);
  EXPECT_EQ(m.token_ids, (std::vector<std::int32_t>{5, 6, 7, 9}));
  EXPECT_EQ(m.positions, (std::vector<std::int32_t>{2, 3, 4, 5}));
  // pos 2, 3 -> block 7 offsets 2, 3; pos 4 -> block 3 offset 0; pos 5 -> block 4 offset 1.
  EXPECT_EQ(m.slot_mapping, (std::vector<std::int32_t>{30, 31, 12, 17}));
  EXPECT_EQ(m.query_start, (std::vector<std::int32_t>{0, 3, 4}));
  EXPECT_EQ(m.context_lens, (std::vector<std::int32_t>{5, 6}));
  EXPECT_EQ(m.max_blocks_per_sequence, 3);
  EXPECT_EQ(m.block_tables, (std::vector<std::int32_t>{7, 3, 0, 1, 4, 0}));
  EXPECT_EQ(m.last_rows, (std::vector<std::int32_t>{2, 3}));
  EXPECT_EQ(m.max_context_len, 6);
}

}  // namespace
}  // namespace pagedserve::forward
