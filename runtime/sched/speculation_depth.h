#pragma once
// speculation_depth: how many lookahead slots each decoding sequence gets in a step
// (speculative decoding, api/speculative_config.h), from what was measured, so that
// speculation never makes a step slower than it makes it useful.
//
// Model. A step of n batched tokens takes t(n) without verification and v(n) with it (two
// step_cost_curve.h curves, learned from the steps that ran; v holds what verifying adds:
// every row's logits read back, another pass over the output layer). Until a verifying
// step has run, v is taken to be t: the first slots are tried, and v is then measured. A sequence
// whose proposed tokens are each accepted with probability alpha (acceptance stops at the first
// rejection, Leviathan et al.) gains alpha^j expected tokens from its j-th proposed token. The plan
// maximises output tokens per second: marginal gains are taken largest first while each one exceeds
// what the slot's extra time t(n+1) - t(n) would produce at the step's rate (tokens per step / step
// time). While reading the weights dominates a step, slots are nearly free and all are taken; once
// a batch is compute-bound, a slot costs as much as a token and none is: depth 0, the step as
// without speculation.
//
// Every k_decode_refresh-th step of a size (at most) runs without slots, to measure t there
// again; as often at most, a size next to the best choice whose v went unmeasured as long
// runs instead (one slot more or fewer), to measure v there again.
//
// Acceptance is not one rate per sequence: a proposal that got past its first token tends to
// go on (a copied span, an easy stretch), so the j-th proposed token is accepted, given the
// ones before it were, more often than the first is (the demo's draft: about 0.7 for the
// first, 0.85 further on). Modelled as such: a sequence's own record says how often its first
// proposed token is accepted (its ease now), and the engine-wide conditional rate at each
// later position (position_acceptance) carries it on, so the expected gain of the j-th slot
// is a_seq x c_1 x ... x c_(j-1). A position too rarely reached to say falls back to the
// position before it (with no data at all: a_seq at every position, the geometric model).
//
// The first-token record: its share of verified steps whose first proposed token was
// accepted, older steps fading, a prior of one of each (0.5); a new sequence starts from the
// engine-wide record (sequences of one workload behave alike), and a sequence given no slots
// fades back toward the prior, so it is tried again later.

#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <vector>

#include "runtime/sched/step_cost_curve.h"

namespace pagedserve::sched {

// How often a sequence's first proposed token is accepted (kept by the scheduler with each
// sequence, and one for the engine).
struct acceptance_record {
  float accepted = 0.0f;
  float rejections = 0.0f;
  // One verified step: `num_accepted` of `num_proposed` proposed tokens were accepted.
  void observe(std::uint32_t num_accepted);
  // A step in which the sequence was given no slots: the record fades toward the prior.
  void fade();
  [[nodiscard]] double rate() const;
  // The same rate, carried by at most `weight` observations: a new sequence starts from the
  // engine's record this way, and its own steps soon outweigh it.
  [[nodiscard]] acceptance_record with_weight_at_most(float weight) const;
};

// Engine-wide acceptance of the proposed token at each position after the first, given the
// ones before it were accepted; runs fade so that it follows the workload.
class position_acceptance {
 public:
  // One verified step: `num_accepted` of `num_proposed` proposed tokens were accepted.
  void observe(std::uint32_t num_proposed, std::uint32_t num_accepted);
  // The rate at `position` (1-based past the first: 1 is the second proposed token), given
  // `before`, the rate at the position before it, which stands in where data is scarce.
  [[nodiscard]] double rate(std::size_t position, double before) const;

 private:
  std::vector<float> reached_;   // [position]: runs whose tokens up to it were proposed and
  std::vector<float> accepted_;  // the ones before it accepted; and of those, accepted
};

class speculation_depth {
 public:
  // max_depth: the most slots per sequence (num_speculative_tokens).
  explicit speculation_depth(std::uint32_t max_depth) : max_depth_(max_depth) {}

  // (tokens, seconds) as if measured, without and with verification (tests).
  void seed_costs(std::span<const std::pair<std::uint32_t, double>> decode,
                  std::span<const std::pair<std::uint32_t, double>> verify) {
    costs_.seed(decode);
    verify_costs_.seed(verify);
    for (const auto& point : decode)
      decode_seen_[step_cost_curve::bucket_of(point.first)] = choices_;
    for (const auto& point : verify)
      verify_seen_[step_cost_curve::bucket_of(point.first)] = choices_;
  }
  // A verified step's run: `num_accepted` of `num_proposed` proposed tokens accepted.
  void observe_run(std::uint32_t num_proposed, std::uint32_t num_accepted) {
    positions_.observe(num_proposed, num_accepted);
  }
  // A step that computed `num_tokens` tokens (proposed ones included) took `seconds`;
  // `verified`: it verified proposed tokens (it teaches v, the others t).
  void observe_step(std::uint32_t num_tokens, double seconds, bool verified) {
    (verified ? verify_costs_ : costs_).observe(num_tokens, seconds);
    (verified ? verify_seen_ : decode_seen_)[step_cost_curve::bucket_of(num_tokens)] = choices_;
  }

  struct candidate {
    double acceptance = 0.5;      // acceptance_record::rate(): of its first proposed token
    std::uint32_t max_depth = 0;  // this sequence's cap (max_tokens, budget)
  };
  // depths[i] for candidates[i]; `num_other_tokens`: the step's tokens besides the slots.
  void choose(std::span<const candidate> candidates, std::uint32_t num_other_tokens,
              std::vector<std::uint32_t>& depths);

  [[nodiscard]] std::uint32_t max_depth() const { return max_depth_; }
  [[nodiscard]] const step_cost_curve& costs() const { return costs_; }
  [[nodiscard]] const step_cost_curve& verify_costs() const { return verify_costs_; }

 private:
  // v(n); until it has data of its own, t(n) stands in for it.
  [[nodiscard]] double verify_seconds(double n) const {
    return verify_costs_.measured() ? verify_costs_.seconds(n) : costs_.seconds(n);
  }

  std::uint32_t max_depth_;
  // t(n) is what a slot is weighed against, and it is only measured by steps without slots:
  // a step whose size had no such step in the last k_decode_refresh choices runs without
  // slots, so t stays current (a stale t, high or low, would price slots wrongly for good).
  static constexpr std::uint64_t k_decode_refresh = 24;
  // And v, near the best choice: explore_stale_neighbour.
  [[nodiscard]] std::size_t explore_stale_neighbour(std::size_t best,
                                                    std::uint32_t num_other_tokens);
  std::uint64_t last_exploration_ = 0;
  std::uint64_t choices_ = 0;
  std::map<std::uint32_t, std::uint64_t> decode_seen_;  // t's bucket -> choice it was measured
  std::map<std::uint32_t, std::uint64_t> verify_seen_;  // v's likewise
  step_cost_curve costs_;
  step_cost_curve verify_costs_;
  position_acceptance positions_;
  struct gain {
    double value = 0.0;
    std::uint32_t index = 0;
  };
  std::vector<gain> gains_;  // scratch
};

}  // namespace pagedserve::sched
