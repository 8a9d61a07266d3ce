#include "runtime/engine/device_sampling.h"

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

device_sampler::device_sampler(kernels::backend& backend, std::int64_t max_rows)
    : backend_(backend) {
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
                            const kernels::tensor& rows, bool keep_logits) {
  slot& s = slots_[index(step)];
  s.rows = logits.dim(0);
  s.vocab = logits.dim(1);
  reserve(s, s.rows);
  const kernels::tensor ids = s.ids.view().rows(0, s.rows);
  backend_.sample({ids, logits, rows.reshape({s.rows, kernels::sampling_row_words})});
  backend_.copy_to_host_async(s.host_ids.get(), ids);
  if (keep_logits) {
    s.host_logits.resize(static_cast<std::size_t>(s.rows * s.vocab));
    backend_.copy_to_host_async(s.host_logits.data(), logits);
  } else {
    s.host_logits.clear();
  }
  s.end->record();
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
