#pragma once
// device_sampling: sampling on the backend for a pipelined step executor. Each step samples
// every row of its logits into one of a few device token buffers (a slot), copies the ids
// to pinned host memory and records a marker behind the copy, so the host learns them later
// (collect) while the next step, already enqueued, reads them on the device
// (forward_batch::device_tokens with token_source = tokens_on_device(slot)).
//
// Slots rotate with the step number: with at most k_max_steps_in_flight steps in flight,
// a slot is reused only after its step was collected. Markers before and after each step
// give the device's busy time and its idle gap since the previous step (CUDA events).

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "api/sampling_params.h"
#include "kernels/backend.h"
#include "runtime/sampling/sampler.h"
#include "runtime/sched/steps_in_flight.h"
#include "runtime/worker/device_token_counts.h"

namespace pagedserve {

// The device's sampling settings for one row, taking the sequence's next draw (the host
// sampler's state advances exactly as sample() would advance it).
[[nodiscard]] kernels::sampling_row take_sampling_row(const sampling_params& params,
                                                      sampler_state& state);
// A row that is sampled but never read (a prefill chunk that does not sample yet): greedy.
[[nodiscard]] kernels::sampling_row unused_sampling_row();
// Appends a row's words to a step's trailer.
void append_words(const kernels::sampling_row& row, std::vector<std::int32_t>& words);

// What a step's rows ask of the logits processing beyond their sampling_rows.
struct step_processing {
  std::vector<std::int32_t> edits;  // (token, bias bits) pairs; the rows' ranges index them
  // Packed counts of the sequences (re)loaded this step: their slots are cleared, then
  // counted from these (slot, token, kind) triples (kernels/ops.h count_tokens_params).
  std::vector<std::int32_t> cleared_slots;
  std::vector<std::int32_t> count_entries;
  bool processes = false;  // some row has edits or a penalty slot
  bool counts = false;     // some row has a penalty slot
};

// Device figures of one step, from its markers (nullopt: no device clock).
struct device_step_timing {
  std::optional<double> busy_s;
  std::optional<double> idle_before_s;  // since the previous step's end (>= 0)
};

class device_sampler {
 public:
  // Room for steps of up to `max_rows` rows (grows on demand, waiting for the backend).
  device_sampler(kernels::backend& backend, std::int64_t max_rows, std::int64_t vocab);

  // Marks the start of step `step` on the stream: call before enqueueing its forward.
  void begin(std::uint64_t step);
  // Enqueues the sampling of `logits` ([rows, vocab] f32) with `rows` (the trailer's device
  // copy, [rows * sampling_row_words] i32), the ids' copy to the host, and (keep_logits)
  // the logits' copy too, made before `processing` changes them; then marks the step's end.
  void sample(std::uint64_t step, const kernels::tensor& logits, const kernels::tensor& rows,
              bool keep_logits, const step_processing& processing);
  // The penalties' counts (slots are taken and returned by the executor).
  [[nodiscard]] device_token_counts& counts() { return counts_; }
  // The step's sampled ids on the device (valid for the next step's device tokens).
  [[nodiscard]] kernels::tensor tokens_on_device(std::uint64_t step) const;

  // Waits for step `step`; then tokens() and logits_row() hold its ids (and logits, when
  // kept) until the slot is reused. `previous` in timing(): the step that ran on the stream
  // just before, for the idle gap.
  void wait(std::uint64_t step);
  [[nodiscard]] std::span<const std::int32_t> tokens(std::uint64_t step) const;
  [[nodiscard]] std::span<const float> logits_row(std::uint64_t step, std::int64_t row) const;
  [[nodiscard]] bool ready(std::uint64_t step);
  [[nodiscard]] device_step_timing timing(std::uint64_t step,
                                          std::optional<std::uint64_t> previous) const;

 private:
  // One more slot than steps in flight: the previous step's end marker must survive until
  // the current one is collected (the idle gap).
  static constexpr std::size_t k_slots = k_max_steps_in_flight + 1;
  struct slot {
    kernels::buffer ids;             // [room] i32
    std::shared_ptr<void> host_ids;  // room i32, pinned
    std::int64_t room = 0;
    std::vector<float> host_logits;
    std::int64_t rows = 0;
    std::int64_t vocab = 0;
    std::unique_ptr<kernels::stream_marker> start, end;
    // The step's edits and count entries, staged in pinned memory for one enqueued copy.
    kernels::buffer upload;
    std::shared_ptr<void> host_upload;
    std::int64_t upload_room = 0;
  };
  [[nodiscard]] static std::size_t index(std::uint64_t step) { return step % k_slots; }
  // Room for `rows` in one slot; waits for the backend first when it reallocates (the next
  // step may still read the old ids).
  void reserve(slot& s, std::int64_t rows);
  // Enqueues the counts' rebuild and the processing of `logits` by `rows`.
  void process(slot& s, const kernels::tensor& logits, const kernels::tensor& rows,
               const step_processing& processing);
  // The step's edits and count entries on the device (one copy from pinned memory).
  [[nodiscard]] kernels::tensor stage(slot& s, const step_processing& processing);

  kernels::backend& backend_;
  std::array<slot, k_slots> slots_;
  device_token_counts counts_;
};

}  // namespace pagedserve
