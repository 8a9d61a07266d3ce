#include "runtime/sched/speculation_depth.h"

#include <algorithm>
#include <cmath>

namespace pagedserve::sched {
namespace {

constexpr float k_acceptance_decay = 0.9f;
constexpr float k_fade = 0.97f;
// Engine-wide positions: about the last 200 runs count; the position before weighs as 4.
constexpr float k_position_decay = 0.995f;
constexpr double k_position_prior = 4.0;

}  // namespace

void acceptance_record::observe(std::uint32_t num_accepted) {
  accepted = accepted * k_acceptance_decay + (num_accepted > 0 ? 1.0f : 0.0f);
  rejections = rejections * k_acceptance_decay + (num_accepted > 0 ? 0.0f : 1.0f);
}

void acceptance_record::fade() {
  accepted *= k_fade;
  rejections *= k_fade;
}

double acceptance_record::rate() const {
  return (static_cast<double>(accepted) + 1.0) / (static_cast<double>(accepted + rejections) + 2.0);
}

void position_acceptance::observe(std::uint32_t num_proposed, std::uint32_t num_accepted) {
  if (num_proposed < 2 || num_accepted == 0) return;  // no position past the first reached
  // Index p holds the (p + 2)-th proposed token, reached when the p + 1 before it were
  // accepted, and accepted itself when more than p + 1 were.
  const std::size_t reached = std::min(num_proposed - 1, num_accepted);
  if (reached_.size() < num_proposed - 1) {
    reached_.resize(num_proposed - 1, 0.0f);
    accepted_.resize(num_proposed - 1, 0.0f);
  }
  for (std::size_t p = 0; p < reached_.size(); ++p) {
    reached_[p] *= k_position_decay;
    accepted_[p] *= k_position_decay;
  }
  for (std::size_t p = 0; p < reached; ++p) {
    reached_[p] += 1.0f;
    if (p + 1 < num_accepted) accepted_[p] += 1.0f;
  }
}

double position_acceptance::rate(std::size_t position, double before) const {
  const std::size_t p = position - 1;
  if (p >= reached_.size()) return before;
  return (static_cast<double>(accepted_[p]) + k_position_prior * before) /
         (static_cast<double>(reached_[p]) + k_position_prior);
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
    double value = c.acceptance;  // the first proposed token's
    double rate = c.acceptance;
    for (std::uint32_t j = 0; j < std::min(c.max_depth, max_depth_); ++j) {
      if (j > 0) {
        rate = positions_.rate(j, rate);
        value *= rate;
      }
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
  best = explore_stale_neighbour(best, num_other_tokens);
  for (std::size_t taken = 0; taken < best; ++taken) ++depths[gains_[taken].index];
}

// v is measured only at the sizes chosen, so a size priced too high (a stray slow step, or
// a first step that paid for a catch-up) would never run again to correct it, and the
// depth would stay below the best. So, at most once every k_decode_refresh choices, a
// neighbour of the best choice (one slot more, else one fewer but at least one) whose size
// was not measured in that many choices runs instead: a near-best step that measures it.
// With no slot chosen, the neighbour is the most promising sequence's first slot.
std::size_t speculation_depth::explore_stale_neighbour(std::size_t best,
                                                       std::uint32_t num_other_tokens) {
  if (choices_ - last_exploration_ <= k_decode_refresh) return best;
  const auto stale = [&](std::size_t taken) {
    const std::uint32_t n =
        std::max<std::uint32_t>(1, num_other_tokens) + static_cast<std::uint32_t>(taken);
    const auto seen = verify_seen_.find(step_cost_curve::bucket_of(n));
    return seen == verify_seen_.end() || choices_ - seen->second > k_decode_refresh;
  };
  for (const std::size_t neighbour : {best + 1, best - 1}) {
    if (neighbour == 0 || neighbour > gains_.size() || !stale(neighbour)) continue;
    last_exploration_ = choices_;
    return neighbour;
  }
  return best;
}

}  // namespace pagedserve::sched
