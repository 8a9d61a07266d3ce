#include "runtime/kv/free_block_queue.h"

#include "runtime/kv/kv_invariant.h"

namespace pagedserve::kv {
namespace {

kv_block& at(std::span<kv_block> blocks, block_id id) {
  kv_check(id.value() < blocks.size(), "block id out of range");
  return blocks[id.value()];
}

}  // namespace

free_block_queue::free_block_queue(std::span<kv_block> blocks) {
  for (const kv_block& b : blocks) append(blocks, b.id);
}

block_id free_block_queue::popleft(std::span<kv_block> blocks) {
  kv_check(head_.has_value(), "popleft on an empty free-block queue");
  const block_id id = *head_;
  remove(blocks, id);
  return id;
}

void free_block_queue::append(std::span<kv_block> blocks, block_id id) {
  kv_check(!contains(blocks, id), "block appended to the free queue twice");
  kv_block& block = at(blocks, id);
  block.prev_free = tail_;
  block.next_free.reset();
  if (tail_) {
    at(blocks, *tail_).next_free = id;
  } else {
    head_ = id;
  }
  tail_ = id;
  ++num_free_blocks_;
}

void free_block_queue::remove(std::span<kv_block> blocks, block_id id) {
  kv_check(contains(blocks, id), "removing a block that is not in the free queue");
  kv_block& block = at(blocks, id);
  if (block.prev_free) {
    at(blocks, *block.prev_free).next_free = block.next_free;
  } else {
    head_ = block.next_free;
  }
  if (block.next_free) {
    at(blocks, *block.next_free).prev_free = block.prev_free;
  } else {
    tail_ = block.prev_free;
  }
  block.prev_free.reset();
  block.next_free.reset();
  --num_free_blocks_;
}

bool free_block_queue::contains(std::span<const kv_block> blocks, block_id id) const {
  kv_check(id.value() < blocks.size(), "block id out of range");
  // Only the head has no predecessor, so a predecessor or being the head means "queued".
  return head_ == id || blocks[id.value()].prev_free.has_value();
}

std::vector<block_id> free_block_queue::to_vector(std::span<const kv_block> blocks) const {
  std::vector<block_id> order;
  order.reserve(num_free_blocks_);
  std::optional<block_id> prev;
  for (std::optional<block_id> cur = head_; cur; cur = blocks[cur->value()].next_free) {
    kv_check(cur->value() < blocks.size(), "free-queue link out of range");
    kv_check(blocks[cur->value()].prev_free == prev, "free-queue prev link inconsistent");
    kv_check(order.size() < num_free_blocks_, "free queue longer than its count (cycle?)");
    order.push_back(*cur);
    prev = cur;
  }
  kv_check(prev == tail_, "free-queue tail does not end the list");
  kv_check(order.size() == num_free_blocks_, "free queue shorter than its count");
  return order;
}

}  // namespace pagedserve::kv
