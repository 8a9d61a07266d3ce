#include "runtime/sched/speculation_depth.h"

#include <algorithm>
#include <cmath>

namespace pagedserve::sched {
namespace {

constexpr float k_acceptance_decay = 0.9f;
constexpr float k_fade = 0.97f;

}  // namespace

void acceptance_record::observe(std::uint32_t num_proposed, std::uint32_t num_accepted) {
  accepted = accepted * k_acceptance_decay + static_cast<float>(num_accepted);
  rejections = rejections * k_acceptance_decay + (num_accepted < num_proposed ? 1.0f : 0.0f);
}

void acceptance_record::fade() {
  accepted *= k_fade;
  rejections *= k_fade;
}

double acceptance_record::rate() const {
  return (static_cast<double>(accepted) + 1.0) / (static_cast<double>(accepted + rejections) + 2.0);
}

acceptance_record acceptance_record::with_weight_at_most(float weight) const {
  const float total = accepted + rejections;
  if (total <= weight) return *this;
  return {accepted * weight / total, rejections * weight / total};
}

void speculation_depth::choose(std::span<const candidate> candidates,
                               std::uint32_t num_other_tokens, std::vector<std::uint32_t>& depths) {
  depths.assign(candidates.size(), 0);
  ++choices_;
  const auto seen =
      decode_seen_.find(step_cost_curve::bucket_of(std::max<std::uint32_t>(1, num_other_tokens)));
  if (seen == decode_seen_.end() || choices_ - seen->second > k_decode_refresh) return;
  gains_.clear();
  for (std::uint32_t i = 0; i < candidates.size(); ++i) {
    const candidate& c = candidates[i];
    double value = 1.0;
    for (std::uint32_t j = 0; j < std::min(c.max_depth, max_depth_); ++j) {
      value *= c.acceptance;
      gains_.push_back({value, i});
    }
  }
  // Largest gains first; a sequence's own gains shrink with depth, so taking them in this
  // order always extends a sequence by its next slot.
  std::stable_sort(gains_.begin(), gains_.end(),
                   [](const gain& x, const gain& y) { return x.value > y.value; });
  // The step's time and its expected output tokens as slots are added. How many of them: the first
  // slot carries verification's fixed cost (the step becomes a verifying one: the draft's forwards,
  // every row's logits, no step planned behind it), so a slot that does not pay alone may pay with
  // the ones after it. Every prefix is weighed and the one with the most tokens per second wins.
  double n = std::max<double>(1.0, num_other_tokens);
  double time = costs_.seconds(n);
  double tokens = static_cast<double>(candidates.size());
  double best_rate = tokens / time;
  std::size_t best = 0;
  for (std::size_t taken = 0; taken < gains_.size(); ++taken) {
    time +=
        std::max(0.0, verify_seconds(n + 1) - (taken > 0 ? verify_seconds(n) : costs_.seconds(n)));
    n += 1;
    tokens += gains_[taken].value;
    if (tokens / time > best_rate) {
      best_rate = tokens / time;
      best = taken + 1;
    }
  }
  for (std::size_t taken = 0; taken < best; ++taken) ++depths[gains_[taken].index];
  if (gains_.empty() || best > 0) {
    last_slot_choice_ = choices_;
  } else if (choices_ - last_slot_choice_ > k_decode_refresh) {
    depths[gains_.front().index] = 1;  // the most promising sequence's first slot, measured
    last_slot_choice_ = choices_;
  }
}

}  // namespace pagedserve::sched
