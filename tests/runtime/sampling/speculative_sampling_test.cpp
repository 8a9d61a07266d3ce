// The verification rule (speculative_sampling.h) keeps the target's distribution exactly: a
// chi-square test over many two-token continuations on a vocabulary of 6, whose proposals
// come from a distribution made to differ from the target (it favours the target's least
// likely tokens). Reference: the target's joint distribution p1(a) p2(b | a), computed here
// from the logits with a plain softmax (temperature, top-k as sampler.h defines them). The
// same test run with a rule that accepts every proposal fails, so the test can fail.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "runtime/sampling/philox.h"
#include "runtime/sampling/sampler.h"
#include "runtime/sampling/speculative_sampling.h"

namespace pagedserve {
namespace {

constexpr std::size_t k_vocab = 6;

// Logits of the first position, and of the second after token a (they depend on a).
std::vector<float> first_logits() { return {2.0f, 1.0f, 0.5f, 0.0f, -0.5f, -1.0f}; }
std::vector<float> second_logits(std::size_t a) {
  std::vector<float> l(k_vocab);
  for (std::size_t b = 0; b < k_vocab; ++b) {
    l[b] = static_cast<float>(std::cos(static_cast<double>(a * 7 + b * 3)) * 1.5);
  }
  return l;
}

// softmax(logits / temperature) restricted to the top_k largest (0: all).
std::vector<double> reference_probs(const std::vector<float>& logits, double temperature,
                                    std::size_t top_k) {
  std::vector<std::size_t> order(logits.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t x, std::size_t y) { return logits[x] > logits[y]; });
  const std::size_t kept = top_k == 0 ? logits.size() : top_k;
  std::vector<double> p(logits.size(), 0.0);
  double total = 0.0;
  for (std::size_t i = 0; i < kept; ++i) {
    p[order[i]] = std::exp(static_cast<double>(logits[order[i]]) / temperature);
    total += p[order[i]];
  }
  for (double& x : p) x /= total;
  return p;
}

// A proposal distribution unlike the target: weight grows toward the target's unlikely end.
std::size_t propose(double u) {
  const double weights[k_vocab] = {0.05, 0.05, 0.1, 0.2, 0.25, 0.35};
  double running = 0.0;
  for (std::size_t i = 0; i < k_vocab; ++i) {
    running += weights[i];
    if (u < running) return i;
  }
  return k_vocab - 1;
}

// Upper 0.1% point of chi-square with `df` degrees of freedom (Wilson-Hilferty).
double chi_square_critical(double df) {
  const double z = 3.090;  // standard normal, upper 0.1%
  const double c = 2.0 / (9.0 * df);
  return df * std::pow(1.0 - c + z * std::sqrt(c), 3.0);
}

enum class rule { leviathan, accept_all };

// Counts of (first, second) over `draws` two-token runs: two proposals verified in turn.
std::vector<double> run_counts(const sampling_params& params, rule r, std::size_t draws) {
  std::vector<double> counts(k_vocab * k_vocab, 0.0);
  std::vector<float> weights;
  std::uint64_t d = 0;
  const auto uniform = [&d] { return philox_uniform(1234, 0, d++); };
  for (std::size_t n = 0; n < draws; ++n) {
    const auto x1 = static_cast<token_id>(propose(uniform()));
    const auto x2 = static_cast<token_id>(propose(uniform()));
    std::size_t out[2] = {0, 0};
    bool accepted = true;
    for (std::size_t pos = 0; pos < 2; ++pos) {
      const std::vector<float> logits = pos == 0 ? first_logits() : second_logits(out[0]);
      sampling_weights(logits, params, weights);
      const token_id proposed = pos == 0 ? x1 : x2;
      if (accepted) {
        accepted = r == rule::accept_all || accept_proposed(weights, proposed, uniform());
        out[pos] = static_cast<std::size_t>(
            accepted ? proposed : sample_after_rejection(weights, proposed, uniform()));
      } else {  // after a rejection the rest is sampled as without speculation
        out[pos] = static_cast<std::size_t>(draw_weighted(weights, uniform()));
      }
    }
    counts[out[0] * k_vocab + out[1]] += 1.0;
  }
  return counts;
}

double chi_square(const std::vector<double>& counts, const sampling_params& params,
                  std::size_t draws, std::size_t& cells) {
  const std::vector<double> p1 = reference_probs(
      first_logits(), params.temperature, static_cast<std::size_t>(std::max(0, params.top_k)));
  double stat = 0.0;
  cells = 0;
  for (std::size_t a = 0; a < k_vocab; ++a) {
    const std::vector<double> p2 = reference_probs(
        second_logits(a), params.temperature, static_cast<std::size_t>(std::max(0, params.top_k)));
    for (std::size_t b = 0; b < k_vocab; ++b) {
      const double expected = static_cast<double>(draws) * p1[a] * p2[b];
      if (expected == 0.0) {  // outside top-k: a single draw there is a failure
        stat += counts[a * k_vocab + b] > 0.0 ? 1e12 : 0.0;
        continue;
      }
      const double diff = counts[a * k_vocab + b] - expected;
      stat += diff * diff / expected;
      ++cells;
    }
  }
  return stat;
}

TEST(SpeculativeSampling, RunsFollowTheTargetDistributionWhateverIsProposed) {
  constexpr std::size_t draws = 200000;
  for (const auto& [temperature, top_k] : {std::pair{1.0f, 0}, std::pair{0.7f, 4}}) {
    sampling_params params;
    params.temperature = temperature;
    params.top_k = top_k;
    std::size_t cells = 0;
    const double stat =
        chi_square(run_counts(params, rule::leviathan, draws), params, draws, cells);
    SCOPED_TRACE("temperature " + std::to_string(temperature) + " top_k " + std::to_string(top_k));
    EXPECT_LT(stat, chi_square_critical(static_cast<double>(cells - 1)));
    // Accepting every proposal gives the proposer's distribution instead: far off.
    const double wrong =
        chi_square(run_counts(params, rule::accept_all, draws), params, draws, cells);
    EXPECT_GT(wrong, 100.0 * chi_square_critical(static_cast<double>(cells - 1)));
  }
}

TEST(SpeculativeSampling, GreedyAcceptsExactlyTheArgmax) {
  sampling_params params;
  params.temperature = 0.0f;
  std::vector<float> weights;
  const std::vector<float> logits = {0.1f, 3.0f, 3.0f, -1.0f};  // tie: the lower id wins
  sampling_weights(logits, params, weights);
  for (double u : {0.0, 0.5, 0.999999}) {
    EXPECT_TRUE(accept_proposed(weights, 1, u));
    EXPECT_FALSE(accept_proposed(weights, 2, u));
    EXPECT_FALSE(accept_proposed(weights, 0, u));
    std::vector<float> w = weights;
    EXPECT_EQ(sample_after_rejection(w, 2, u), 1);
  }
}

TEST(SpeculativeSampling, WeightsDrawLikeTheSampler) {
  // draw_weighted over sampling_weights picks what sample() picks for the same uniform.
  sampling_params params;
  params.temperature = 0.8f;
  params.top_p = 0.9f;
  params.top_k = 5;
  params.min_p = 0.05f;
  std::vector<float> logits(50);
  for (std::size_t i = 0; i < logits.size(); ++i) {
    logits[i] = static_cast<float>(std::sin(static_cast<double>(i) * 1.7) * 3.0);
  }
  std::vector<float> weights;
  sampling_weights(logits, params, weights);
  for (int d = 0; d < 200; ++d) {
    sampler_state state(99, 0);
    for (int skip = 0; skip < d; ++skip) (void)state.next_uniform();
    const double u = philox_uniform(99, 0, static_cast<std::uint64_t>(d));
    EXPECT_EQ(sample(logits, params, state), draw_weighted(weights, u)) << "draw " << d;
  }
}

}  // namespace
}  // namespace pagedserve
