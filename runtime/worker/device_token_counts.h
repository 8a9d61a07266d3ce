#pragma once
// device_token_counts: the packed token counts (runtime/sampling/token_counts.h) of the
// sequences with penalties, on the backend, one row of [slots, vocab] i32 per sequence. A
// sequence holds its slot from registration until it finishes or is dropped (a preempted
// one keeps it); the rows are rebuilt when a sequence is (re)loaded and counted by every
// step that samples it (kernels/ops.h count_tokens, count_sampled).

#include <cstdint>
#include <vector>

#include "kernels/backend.h"

namespace pagedserve {

class device_token_counts {
 public:
  device_token_counts(kernels::backend& backend, std::int64_t vocab)
      : backend_(backend), vocab_(vocab) {}

  // A free slot. Growing the rows waits for the backend (steps in flight read them) and
  // keeps the rows in use.
  [[nodiscard]] std::int32_t acquire();
  void release(std::int32_t slot) { free_.push_back(slot); }

  // Every row ([slots, vocab] i32); an empty tensor until the first acquire().
  [[nodiscard]] kernels::tensor all() const;
  [[nodiscard]] kernels::tensor row(std::int32_t slot) const;

 private:
  void grow();

  kernels::backend& backend_;
  std::int64_t vocab_;
  kernels::buffer counts_;
  std::int32_t room_ = 0;
  std::int32_t next_ = 0;  // slots below it have been handed out before
  std::vector<std::int32_t> free_;
};

}  // namespace pagedserve
