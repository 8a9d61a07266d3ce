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
  // The step's time and its expected output tokens as slots are added.
  double n = std::max<double>(1.0, num_other_tokens);
  double time = costs_.seconds(n);
  double tokens = static_cast<double>(candidates.size());
  bool verifying = false;  // t(n) until the first slot, v(n) from then on
  for (const gain& g : gains_) {
    const double extra =
        std::max(0.0, verify_seconds(n + 1) - (verifying ? verify_seconds(n) : costs_.seconds(n)));
    verifying = true;
    if (g.value * time <= extra * tokens) break;  // this slot would lower tokens per second
    ++depths[g.index];
    n += 1;
    time += extra;
    tokens += g.value;
  }
}

}  // namespace pagedserve::sched
