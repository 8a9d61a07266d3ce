#include "runtime/worker/device_sampling.h"

#include <algorithm>
#include <cstring>

namespace pagedserve {

kernels::sampling_row take_sampling_row(const sampling_params& params, sampler_state& state) {
  kernels::sampling_row row;
  row.temperature = params.temperature;
  row.top_p = params.top_p;
  row.min_p = params.min_p;
  row.top_k = params.top_k;
  row.seed = state.seed();
  row.sequence_index = state.sequence_index();
  row.draw = state.num_draws();
  row.presence_penalty = params.presence_penalty;
  row.frequency_penalty = params.frequency_penalty;
  row.repetition_penalty = params.repetition_penalty;
  (void)state.next_uniform();  // the draw this row makes on the device
  return row;
}

kernels::sampling_row unused_sampling_row() {
  kernels::sampling_row row;
  row.temperature = 0.0F;
  return row;
}

void append_words(const kernels::sampling_row& row, std::vector<std::int32_t>& words) {
  const std::size_t at = words.size();
  words.resize(at + static_cast<std::size_t>(kernels::sampling_row_words));
  std::memcpy(words.data() + at, &row, sizeof(row));
}

device_sampler::device_sampler(kernels::backend& backend, std::int64_t max_rows, std::int64_t vocab)
    : backend_(backend), counts_(backend, vocab) {
  for (slot& s : slots_) {
    s.start = backend_.make_marker();
    s.end = backend_.make_marker();
    reserve(s, std::max<std::int64_t>(max_rows, 1));
  }
}

void device_sampler::reserve(slot& s, std::int64_t rows) {
  if (rows <= s.room) return;
  backend_.synchronize();
  s.room = std::max(rows, 2 * s.room);
  s.ids = backend_.allocate(kernels::dtype::i32, {s.room});
  s.host_ids = backend_.allocate_host(static_cast<std::size_t>(s.room) * sizeof(std::int32_t));
}

void device_sampler::begin(std::uint64_t step) { slots_[index(step)].start->record(); }

void device_sampler::sample(std::uint64_t step, const kernels::tensor& logits,
                            const kernels::tensor& rows, bool keep_logits,
                            const step_processing& processing) {
  slot& s = slots_[index(step)];
  s.rows = logits.dim(0);
  s.vocab = logits.dim(1);
  reserve(s, s.rows);
  const kernels::tensor ids = s.ids.view().rows(0, s.rows);
  const kernels::tensor row_table = rows.reshape({s.rows, kernels::sampling_row_words});
  if (keep_logits) {  // the raw logits, for logprobs
    s.host_logits.resize(static_cast<std::size_t>(s.rows * s.vocab));
    backend_.copy_to_host_async(s.host_logits.data(), logits);
  } else {
    s.host_logits.clear();
  }
  process(s, logits, row_table, processing);
  backend_.sample({ids, logits, row_table});
  if (processing.counts) backend_.count_sampled({counts_.all(), ids, row_table});
  backend_.copy_to_host_async(s.host_ids.get(), ids);
  s.end->record();
}

void device_sampler::process(slot& s, const kernels::tensor& logits, const kernels::tensor& rows,
                             const step_processing& processing) {
  const kernels::tensor staged = stage(s, processing);
  const auto num_edit_words = static_cast<std::int64_t>(processing.edits.size());
  const auto num_entry_words = static_cast<std::int64_t>(processing.count_entries.size());
  for (const std::int32_t slot_index : processing.cleared_slots) {
    backend_.fill_zero(counts_.row(slot_index));
  }
  if (num_entry_words > 0) {
    backend_.count_tokens(
        {counts_.all(),
         staged.rows(num_edit_words, num_entry_words).reshape({num_entry_words / 3, 3})});
  }
  if (!processing.processes) return;
  kernels::tensor edits;
  if (num_edit_words > 0) {
    edits = staged.rows(0, num_edit_words).reshape({num_edit_words / 2, 2});
  }
  backend_.process_logits({logits, rows, edits, counts_.all()});
}

kernels::tensor device_sampler::stage(slot& s, const step_processing& processing) {
  const std::size_t words = processing.edits.size() + processing.count_entries.size();
  if (words == 0) return {};
  const auto needed = static_cast<std::int64_t>(words);
  if (needed > s.upload_room) {
    backend_.synchronize();  // an earlier step may still copy from the old staging memory
    s.upload_room = std::max(needed, 2 * s.upload_room);
    s.upload = backend_.allocate(kernels::dtype::i32, {s.upload_room});
    s.host_upload = backend_.allocate_host(static_cast<std::size_t>(s.upload_room) * 4);
  }
  auto* host = static_cast<std::int32_t*>(s.host_upload.get());
  std::copy(processing.edits.begin(), processing.edits.end(), host);
  std::copy(processing.count_entries.begin(), processing.count_entries.end(),
            host + processing.edits.size());
  const kernels::tensor staged = s.upload.view().rows(0, needed);
  backend_.copy_from_host_async(staged, host);
  return staged;
}

kernels::tensor device_sampler::tokens_on_device(std::uint64_t step) const {
  const slot& s = slots_[index(step)];
  return s.ids.view().rows(0, s.rows);
}

void device_sampler::wait(std::uint64_t step) { slots_[index(step)].end->wait(); }

bool device_sampler::ready(std::uint64_t step) { return slots_[index(step)].end->passed(); }

std::span<const std::int32_t> device_sampler::tokens(std::uint64_t step) const {
  const slot& s = slots_[index(step)];
  return {static_cast<const std::int32_t*>(s.host_ids.get()), static_cast<std::size_t>(s.rows)};
}

std::span<const float> device_sampler::logits_row(std::uint64_t step, std::int64_t row) const {
  const slot& s = slots_[index(step)];
  return std::span<const float>(s.host_logits)
      .subspan(static_cast<std::size_t>(row * s.vocab), static_cast<std::size_t>(s.vocab));
}

device_step_timing device_sampler::timing(std::uint64_t step,
                                          std::optional<std::uint64_t> previous) const {
  const slot& s = slots_[index(step)];
  device_step_timing t;
  t.busy_s = s.end->seconds_since(*s.start);
  // An older previous step's slot may have been reused since: then no gap is known.
  if (previous && *previous < step && step - *previous < k_slots) {
    const std::optional<double> gap = s.start->seconds_since(*slots_[index(*previous)].end);
    if (gap) t.idle_before_s = std::max(0.0, *gap);
  }
  return t;
}

}  // namespace pagedserve
