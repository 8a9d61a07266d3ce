#pragma once
// free_block_queue: the blocks with ref_cnt == 0, as an intrusive doubly linked list threaded
// through kv_block::prev_free / next_free. It doubles as the prefix cache's LRU list:
//
//   front (evicted first)                                        back (evicted last)
//   [ never used, id order ] ... [ freed long ago ] ... [ freed just now: tail, ..., head ]
//
// - At start every block is queued in id order 0..N-1.
// - Allocation pops from the front; if that block still carries a hash it is evicted then.
// - free(seq) appends the sequence's blocks tail first, so a chain's tail blocks sit in front
//   of their parents and are evicted before them (a parent outlives its children).
// - A prefix hit on a free block ("touch") removes it from the middle in O(1).
//
// The queue stores only its ends and length; the links live in the block array, which every
// operation receives, so the owner (block_pool) stays copyable and movable.

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "runtime/kv/kv_block.h"

namespace pagedserve::kv {

class free_block_queue {
 public:
  free_block_queue() = default;
  // Queues every block of `blocks` in id order; they must all be unlinked.
  explicit free_block_queue(std::span<kv_block> blocks);

  [[nodiscard]] block_id popleft(std::span<kv_block> blocks);
  void append(std::span<kv_block> blocks, block_id id);
  void remove(std::span<kv_block> blocks, block_id id);

  [[nodiscard]] bool contains(std::span<const kv_block> blocks, block_id id) const;
  [[nodiscard]] std::uint32_t size() const { return num_free_blocks_; }
  [[nodiscard]] bool empty() const { return num_free_blocks_ == 0; }
  [[nodiscard]] std::optional<block_id> front() const { return head_; }

  // Front-to-back order (tests, invariant checks); aborts if the links are inconsistent.
  [[nodiscard]] std::vector<block_id> to_vector(std::span<const kv_block> blocks) const;

 private:
  std::optional<block_id> head_;
  std::optional<block_id> tail_;
  std::uint32_t num_free_blocks_ = 0;
};

}  // namespace pagedserve::kv
