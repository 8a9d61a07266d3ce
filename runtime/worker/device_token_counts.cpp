#include "runtime/worker/device_token_counts.h"

#include <algorithm>

namespace pagedserve {

std::int32_t device_token_counts::acquire() {
  if (!free_.empty()) {
    const std::int32_t slot = free_.back();
    free_.pop_back();
    return slot;
  }
  if (next_ == room_) grow();
  return next_++;
}

void device_token_counts::grow() {
  const std::int32_t room = std::max(8, 2 * room_);
  kernels::buffer grown = backend_.allocate(kernels::dtype::i32, {room, vocab_});
  if (room_ > 0) {
    backend_.copy(grown.view().rows(0, room_), counts_.view());
    backend_.synchronize();  // the old rows go now; no step may still read them
  }
  counts_ = std::move(grown);
  room_ = room;
}

kernels::tensor device_token_counts::all() const {
  return room_ == 0 ? kernels::tensor{} : counts_.view();
}

kernels::tensor device_token_counts::row(std::int32_t slot) const {
  return counts_.view().rows(slot, 1);
}

}  // namespace pagedserve
