#include "runtime/sampling/sampler.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <random>
#include <vector>

#include "runtime/sampling/fast_exp.h"
#include "runtime/sampling/truncation.h"

namespace pagedserve {
namespace {

using sampling_detail::candidate;
using sampling_detail::max_logit;

constexpr float k_neg_inf = -std::numeric_limits<float>::infinity();
constexpr float k_pos_inf = std::numeric_limits<float>::infinity();

[[noreturn]] void fail_empty(const char* function) {
  std::fprintf(stderr, "pagedserve: %s called with empty logits\n", function);
  std::abort();
}

// The unnormalised probability exp((logit - max) * (1 / temperature)) in fp32 (see
// fast_exp.h). The max token weighs exactly 1. NaN and -inf weigh 0. If the max is +inf, the
// +inf tokens weigh 1 and all others 0 (the limit of the softmax).
struct weigher {
  float max;
  float inv_temperature;

  [[nodiscard]] float operator()(float logit) const {
    if (max == k_pos_inf) return logit == k_pos_inf ? 1.0f : 0.0f;
    return sampling_detail::exp_nonpositive((logit - max) * inv_temperature);
  }

  // The same for every logit; the common case is one vectorised loop.
  void fill(std::span<const float> logits, std::span<float> out) const {
    if (max == k_pos_inf) {
      for (std::size_t i = 0; i < logits.size(); ++i) out[i] = (*this)(logits[i]);
    } else {
      sampling_detail::exp_shifted(logits, max, inv_temperature, out);
    }
  }
};

// Scratch reused across calls on one thread: vocabularies are ~150k entries, too big to
// allocate for every token.
[[nodiscard]] std::vector<candidate>& candidate_scratch() {
  thread_local std::vector<candidate> cands;
  cands.clear();
  return cands;
}
[[nodiscard]] std::vector<float>& weight_scratch() {
  thread_local std::vector<float> weights;
  return weights;
}

// Inverse CDF in ascending id order: the first token whose running weight exceeds
// u * (total weight). `weights` is indexed by token id; zero weights never win. Block sums
// let the walk skip whole blocks and step one token at a time only inside the block that
// holds the pick (running sums are per block, so rounding may differ from a sequential sum).
[[nodiscard]] token_id draw(std::span<const float> weights, double u) {
  constexpr std::size_t block = 1024;
  thread_local std::vector<double> block_sums;
  block_sums.clear();
  double total = 0.0;
  for (std::size_t begin = 0; begin < weights.size(); begin += block) {
    block_sums.push_back(sampling_detail::block_sum(
        weights.subspan(begin, std::min(block, weights.size() - begin))));
    total += block_sums.back();
  }
  const double target = u * total;
  double running = 0.0;
  for (std::size_t b = 0; b < block_sums.size(); ++b) {
    if (running + block_sums[b] <= target) {
      running += block_sums[b];
      continue;
    }
    const std::size_t end = std::min(weights.size(), (b + 1) * block);
    for (std::size_t i = b * block; i < end; ++i) {
      running += weights[i];
      if (weights[i] > 0.0f && running > target) return static_cast<token_id>(i);
    }
  }
  // u * total rounded up to the full sum: the last token that can be drawn at all.
  std::size_t last = weights.size() - 1;
  while (last > 0 && !(weights[last] > 0.0f)) --last;
  return static_cast<token_id>(last);
}

// The same inverse CDF over a short candidate list (any order on entry).
[[nodiscard]] token_id draw(std::span<candidate> cands, double u) {
  std::sort(cands.begin(), cands.end(),
            [](const candidate& a, const candidate& b) { return a.id < b.id; });
  const double target = u * sampling_detail::total_weight(cands);
  double running = 0.0;
  token_id last_positive = cands.front().id;
  for (const candidate& c : cands) {
    if (c.weight <= 0.0f) continue;
    running += c.weight;
    last_positive = c.id;
    if (running > target) return c.id;
  }
  return last_positive;
}

// Top-k on: the k candidates are few, so they are filtered and drawn as a list.
[[nodiscard]] token_id sample_top_k(std::span<const float> logits, const sampling_params& params,
                                    const weigher& weight, double u) {
  std::vector<candidate>& cands = candidate_scratch();
  sampling_detail::select_top_k(logits, static_cast<std::size_t>(params.top_k), cands);
  for (candidate& c : cands) c.weight = weight(c.weight);
  if (params.top_p_enabled()) {
    const double target = static_cast<double>(params.top_p) * sampling_detail::total_weight(cands);
    cands.resize(sampling_detail::find_nucleus(cands, target));
  }
  const float min_p = params.min_p;  // the max weight is 1, so this is min_p * max weight
  std::erase_if(cands, [min_p](const candidate& c) { return c.weight < min_p; });
  return draw(cands, u);
}

// Top-k off: weights for the whole vocabulary; tokens filtered out get weight 0.
[[nodiscard]] token_id sample_full(std::span<const float> logits, const sampling_params& params,
                                   const weigher& weight, double u) {
  std::vector<float>& weights = weight_scratch();
  weights.resize(logits.size());
  const float min_p = params.min_p;  // the max weight is 1, so this is min_p * max weight
  weight.fill(logits, weights);
  if (params.top_p_enabled()) {
    sampling_detail::keep_nucleus(weights, params.top_p, candidate_scratch());
  }
  if (params.min_p_enabled()) {
    for (float& w : weights) w = w < min_p ? 0.0f : w;
  }
  return draw(weights, u);
}

}  // namespace

sampler_state sampler_state::create(const sampling_params& params, std::uint64_t sequence_index) {
  if (params.seed) return {*params.seed, sequence_index};
  std::random_device device;
  const std::uint64_t seed = (std::uint64_t{device()} << 32) | device();
  return {seed, sequence_index};
}

token_id greedy_sample(std::span<const float> logits) {
  if (logits.empty()) fail_empty("greedy_sample");
  const float best = max_logit(logits);
  if (best == k_neg_inf) return 0;
  return static_cast<token_id>(std::find(logits.begin(), logits.end(), best) - logits.begin());
}

token_id sample(std::span<const float> logits, const sampling_params& params,
                sampler_state& state) {
  assert(params.validate().ok());
  const double u = state.next_uniform();
  if (params.is_greedy()) return greedy_sample(logits);
  if (logits.empty()) fail_empty("sample");
  const float max = max_logit(logits);
  if (max == k_neg_inf) return 0;  // every logit is NaN or -inf: documented fallback
  const weigher weight{max, 1.0f / params.temperature};
  if (params.top_k_enabled() && static_cast<std::size_t>(params.top_k) < logits.size()) {
    return sample_top_k(logits, params, weight, u);
  }
  return sample_full(logits, params, weight, u);
}

void sampling_weights(std::span<const float> logits, const sampling_params& params,
                      std::vector<float>& out) {
  if (logits.empty()) fail_empty("sampling_weights");
  out.assign(logits.size(), 0.0f);
  if (params.is_greedy()) {
    const float best = max_logit(logits);
    if (best != k_neg_inf) out[static_cast<std::size_t>(greedy_sample(logits))] = 1.0f;
    return;
  }
  const float max = max_logit(logits);
  if (max == k_neg_inf) return;
  const weigher weight{max, 1.0f / params.temperature};
  const float min_p = params.min_p;  // the max weight is 1, so this is min_p * max weight
  if (params.top_k_enabled() && static_cast<std::size_t>(params.top_k) < logits.size()) {
    std::vector<candidate>& cands = candidate_scratch();
    sampling_detail::select_top_k(logits, static_cast<std::size_t>(params.top_k), cands);
    for (candidate& c : cands) c.weight = weight(c.weight);
    if (params.top_p_enabled()) {
      const double target =
          static_cast<double>(params.top_p) * sampling_detail::total_weight(cands);
      cands.resize(sampling_detail::find_nucleus(cands, target));
    }
    for (const candidate& c : cands) {
      if (!(c.weight < min_p)) out[static_cast<std::size_t>(c.id)] = c.weight;
    }
    return;
  }
  weight.fill(logits, out);
  if (params.top_p_enabled()) sampling_detail::keep_nucleus(out, params.top_p, candidate_scratch());
  if (params.min_p_enabled()) {
    for (float& w : out) w = w < min_p ? 0.0f : w;
  }
}

token_id draw_weighted(std::span<const float> weights, double u) {
  if (weights.empty()) fail_empty("draw_weighted");
  return draw(weights, u);
}

}  // namespace pagedserve
