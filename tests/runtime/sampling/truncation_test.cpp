// The sampler's internal top-k and top-p selection against brute force: a full sort of
// (weight desc, id asc). Weights are multiples of 1/1024 drawn from a few values, so there
// are many ties and every partial sum is exact in any order: the selections must match
// exactly.

#include "runtime/sampling/truncation.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <random>
#include <set>
#include <vector>

namespace pagedserve::sampling_detail {
namespace {

std::vector<float> tied_weights(std::size_t vocab, std::uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> pick(0, 12);
  std::vector<float> w(vocab);
  for (float& x : w) x = static_cast<float>(pick(gen) * pick(gen)) / 1024.0f;  // in [0, 0.15]
  w[vocab / 3] = 1.0f;  // the max weighs 1, as the sampler guarantees
  return w;
}

// Token ids of the brute-force nucleus: sort everything, keep while the mass before < target.
std::set<token_id> reference_nucleus(const std::vector<float>& w, double target) {
  std::vector<token_id> order(w.size());
  for (std::size_t i = 0; i < w.size(); ++i) order[i] = static_cast<token_id>(i);
  std::sort(order.begin(), order.end(),
            [&](token_id a, token_id b) { return w[a] != w[b] ? w[a] > w[b] : a < b; });
  std::set<token_id> kept;
  double mass = 0.0;
  for (token_id t : order) {
    if (mass >= target) break;
    kept.insert(t);
    mass += w[t];
  }
  return kept;
}

double sum(const std::vector<float>& w) {
  double s = 0.0;
  for (float x : w) s += x;
  return s;
}

TEST(Truncation, FindNucleusMatchesBruteForce) {
  for (std::size_t vocab : {1u, 7u, 64u, 65u, 1000u, 20000u}) {
    const std::vector<float> w = tied_weights(vocab, static_cast<std::uint32_t>(vocab));
    for (double top_p : {1e-9, 0.3, 0.77, 0.95, 1.0}) {
      std::vector<candidate> cands;
      for (std::size_t i = 0; i < vocab; ++i) cands.push_back({w[i], static_cast<token_id>(i)});
      const double target = top_p * sum(w);
      const std::size_t m = find_nucleus(cands, target);
      std::set<token_id> got;
      for (std::size_t i = 0; i < m; ++i) got.insert(cands[i].id);
      EXPECT_EQ(got, reference_nucleus(w, target)) << vocab << " tokens, top_p " << top_p;
    }
  }
}

TEST(Truncation, KeepNucleusZeroesExactlyTheTokensOutside) {
  for (std::size_t vocab : {1u, 100u, 5000u, 50000u}) {
    const std::vector<float> w = tied_weights(vocab, 7 + static_cast<std::uint32_t>(vocab));
    for (float top_p : {1e-6f, 0.25f, 0.5f, 0.9f, 0.999f}) {
      std::vector<float> kept = w;
      std::vector<candidate> scratch;
      keep_nucleus(kept, top_p, scratch);
      const std::set<token_id> expected = reference_nucleus(w, top_p * sum(w));
      for (std::size_t i = 0; i < vocab; ++i) {
        const bool in = expected.contains(static_cast<token_id>(i));
        ASSERT_EQ(kept[i], in ? w[i] : 0.0f)
            << "token " << i << " of " << vocab << ", top_p " << top_p;
      }
    }
  }
}

TEST(Truncation, SelectTopKMatchesBruteForceWithTiesAndNonFinite) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  for (std::size_t vocab : {5u, 16u, 17u, 1000u, 4099u}) {
    std::vector<float> logits = tied_weights(vocab, 3 + static_cast<std::uint32_t>(vocab));
    for (std::size_t i = 0; i < vocab; i += 5) logits[i] = nan;
    for (std::size_t i = 2; i < vocab; i += 11) logits[i] = -inf;
    std::vector<token_id> order;
    for (std::size_t i = 0; i < vocab; ++i) {
      if (logits[i] > -inf) order.push_back(static_cast<token_id>(i));
    }
    std::stable_sort(order.begin(), order.end(),
                     [&](token_id a, token_id b) { return logits[a] > logits[b]; });
    for (std::size_t k : {0u, 1u, 3u, 16u, 100u, 5000u}) {
      std::vector<candidate> out;
      select_top_k(logits, k, out);
      std::set<token_id> got;
      for (const candidate& c : out) {
        got.insert(c.id);
        EXPECT_EQ(c.weight, logits[c.id]);
      }
      const std::set<token_id> expected(
          order.begin(), order.begin() + static_cast<std::ptrdiff_t>(std::min(k, order.size())));
      EXPECT_EQ(got, expected) << vocab << " tokens, k " << k;
    }
  }
}

}  // namespace
}  // namespace pagedserve::sampling_detail
