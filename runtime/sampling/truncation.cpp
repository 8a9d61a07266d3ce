#include "runtime/sampling/truncation.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <iterator>
#include <limits>

namespace pagedserve::sampling_detail {

// Sixteen independent running maxima: the compiler may not reorder a float max reduction by
// itself, and one dependency chain would cost a full compare latency per element.
float max_logit(std::span<const float> logits) {
  constexpr std::size_t num_lanes = 16;
  float lanes[num_lanes];
  std::fill(std::begin(lanes), std::end(lanes), -std::numeric_limits<float>::infinity());
  std::size_t i = 0;
  for (; i + num_lanes <= logits.size(); i += num_lanes) {
    for (std::size_t j = 0; j < num_lanes; ++j) {
      lanes[j] = logits[i + j] > lanes[j] ? logits[i + j] : lanes[j];
    }
  }
  float best = -std::numeric_limits<float>::infinity();
  for (; i < logits.size(); ++i) best = logits[i] > best ? logits[i] : best;
  for (float lane : lanes) best = lane > best ? lane : best;
  return best;
}

double total_weight(std::span<const candidate> cands) {
  double total = 0.0;
  for (const candidate& c : cands) total += c.weight;
  return total;
}

double block_sum(std::span<const float> w) {
  double lanes[4] = {0.0, 0.0, 0.0, 0.0};
  std::size_t i = 0;
  for (; i + 4 <= w.size(); i += 4) {
    for (std::size_t j = 0; j < 4; ++j) lanes[j] += w[i + j];
  }
  for (; i < w.size(); ++i) lanes[0] += w[i];
  return (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
}

namespace {

// Offers token i to the bounded heap of the k most likely tokens seen so far. Heap order
// under more_likely puts the least likely kept token at the front. A later token with an
// equal logit has a larger id, so it never displaces an earlier one.
void offer(std::vector<candidate>& heap, std::size_t k, float logit, std::size_t i) {
  if (!(logit > -std::numeric_limits<float>::infinity())) return;  // NaN or -inf
  const candidate c{logit, static_cast<token_id>(i)};
  if (heap.size() < k) {
    heap.push_back(c);
    std::push_heap(heap.begin(), heap.end(), more_likely);
  } else if (more_likely(c, heap.front())) {
    std::pop_heap(heap.begin(), heap.end(), more_likely);
    heap.back() = c;
    std::push_heap(heap.begin(), heap.end(), more_likely);
  }
}

}  // namespace

void select_top_k(std::span<const float> logits, std::size_t k, std::vector<candidate>& out) {
  if (k == 0) return;
  if (k * 8 >= logits.size()) {  // k is a large share: one selection pass beats a heap
    for (std::size_t i = 0; i < logits.size(); ++i) {
      if (logits[i] > -std::numeric_limits<float>::infinity()) {
        out.push_back({logits[i], static_cast<token_id>(i)});
      }
    }
    if (out.size() > k) {
      std::nth_element(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(k), out.end(),
                       more_likely);
      out.resize(k);
    }
    return;
  }
  // Once the heap is full, most blocks of 16 logits hold nothing above its front: their max
  // (a short branch-free loop) lets the whole block be skipped.
  constexpr std::size_t block = 16;
  std::size_t i = 0;
  for (; i + block <= logits.size(); i += block) {
    float block_max = -std::numeric_limits<float>::infinity();
    for (std::size_t j = i; j < i + block; ++j) {
      block_max = logits[j] > block_max ? logits[j] : block_max;
    }
    if (out.size() == k && block_max <= out.front().weight) continue;
    for (std::size_t j = i; j < i + block; ++j) offer(out, k, logits[j], j);
  }
  for (; i < logits.size(); ++i) offer(out, k, logits[i], i);
}

std::size_t find_nucleus(std::span<candidate> cands, double target_mass) {
  constexpr std::size_t k_sort_below = 64;
  const auto at = [&](std::size_t i) { return cands.begin() + static_cast<std::ptrdiff_t>(i); };
  // Invariants: cands[0, lo) are more likely than cands[lo, hi), which are more likely than
  // cands[hi, n); mass_before is the weight of cands[0, lo); the cut lies in [lo, hi).
  std::size_t lo = 0;
  std::size_t hi = cands.size();
  double mass_before = 0.0;
  std::size_t chunk = k_sort_below;
  while (hi - lo > k_sort_below) {
    const std::size_t split = lo + std::min(chunk, (hi - lo) / 2);
    std::nth_element(at(lo), at(split), at(hi), more_likely);
    const double mass = total_weight(cands.subspan(lo, split - lo));
    if (mass_before + mass >= target_mass) {
      hi = split;
    } else {
      mass_before += mass;
      lo = split;
      chunk *= 8;
    }
  }
  std::sort(at(lo), at(hi), more_likely);
  for (std::size_t i = lo; i < hi; ++i) {
    mass_before += cands[i].weight;
    if (mass_before >= target_mass) return i + 1;
  }
  return hi;  // summation order left the target a rounding error out of reach
}

namespace {

// Weights are non-negative floats, so the top bits are the biased binary exponent: buckets
// order by weight, each spanning a factor of 2. Bucket 0 holds zeros and subnormals.
[[nodiscard]] std::uint32_t exponent_bucket(float weight) {
  return std::bit_cast<std::uint32_t>(weight) >> 23;
}

}  // namespace

void keep_nucleus(std::span<float> weights, float top_p, std::vector<candidate>& scratch) {
  std::array<double, 256> bucket_mass{};
  for (float w : weights) bucket_mass[exponent_bucket(w)] += w;
  double total = 0.0;
  for (double m : bucket_mass) total += m;
  const double target = static_cast<double>(top_p) * total;

  // The cut lies in the first bucket (from the top) that brings the mass to the target.
  double mass_above = 0.0;
  std::uint32_t cut = 255;
  while (cut > 0 && mass_above + bucket_mass[cut] < target) mass_above += bucket_mass[cut--];

  scratch.clear();
  for (std::size_t i = 0; i < weights.size(); ++i) {
    const std::uint32_t bucket = exponent_bucket(weights[i]);
    if (bucket < cut) {
      weights[i] = 0.0f;
    } else if (bucket == cut && weights[i] > 0.0f) {
      scratch.push_back({weights[i], static_cast<token_id>(i)});
    }
  }
  if (scratch.empty()) return;
  const std::size_t nucleus = find_nucleus(scratch, target - mass_above);
  for (std::size_t i = nucleus; i < scratch.size(); ++i) weights[scratch[i].id] = 0.0f;
}

}  // namespace pagedserve::sampling_detail
