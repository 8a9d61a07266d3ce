// Prompt lookup (ngram_proposer.h) against a reference written from the definition: for n
// from prompt_lookup_max down to prompt_lookup_min, every earlier start whose n tokens equal
// the last n is collected, and the latest one's continuation is what must be proposed.

#include <gtest/gtest.h>

#include <random>

#include "runtime/spec/ngram_proposer.h"

namespace pagedserve::spec {
namespace {

std::vector<token_id> reference(const std::vector<token_id>& t, std::size_t min_n,
                                std::size_t max_n, std::size_t k) {
  for (std::size_t n = max_n; n >= min_n && n >= 1; --n) {
    if (n + 1 > t.size()) continue;
    std::vector<std::size_t> starts;
    for (std::size_t s = 0; s + n < t.size(); ++s) {
      bool same = true;
      for (std::size_t i = 0; i < n; ++i) same = same && t[s + i] == t[t.size() - n + i];
      if (same) starts.push_back(s);
    }
    if (starts.empty()) continue;
    const std::size_t from = starts.back() + n;
    std::vector<token_id> out;
    for (std::size_t i = from; i < t.size() && out.size() < k; ++i) out.push_back(t[i]);
    return out;
  }
  return {};
}

TEST(NgramProposer, ProposesWhatFollowedTheLatestEarlierOccurrence) {
  ngram_proposer p(1, 3);
  std::vector<token_id> out;
  // "a b c d | x a b c" -> the last 3 (a b c) occurred at 0: propose d x a.
  p.propose(std::vector<token_id>{1, 2, 3, 4, 9, 1, 2, 3}, 3, out);
  EXPECT_EQ(out, (std::vector<token_id>{4, 9, 1}));
  // The longest n wins over a later shorter match: "1 2 3 7 | 5 3 8 | 1 2 3": 3-gram at 0.
  p.propose(std::vector<token_id>{1, 2, 3, 7, 5, 3, 8, 1, 2, 3}, 2, out);
  EXPECT_EQ(out, (std::vector<token_id>{7, 5}));
  // Nothing repeats: no proposal.
  p.propose(std::vector<token_id>{1, 2, 3, 4, 5}, 4, out);
  EXPECT_TRUE(out.empty());
  // A run repeating itself proposes its own continuation, capped at what is known.
  p.propose(std::vector<token_id>{7, 7, 7, 7}, 5, out);
  EXPECT_EQ(out, (std::vector<token_id>{7}));
}

TEST(NgramProposer, HonoursTheMinimumLength) {
  ngram_proposer p(2, 4);
  std::vector<token_id> out;
  p.propose(std::vector<token_id>{5, 1, 6, 2, 1}, 3, out);  // only a 1-gram repeats
  EXPECT_TRUE(out.empty());
  p.propose(std::vector<token_id>{5, 1, 6, 2, 5, 1}, 3, out);  // the 2-gram "5 1" repeats
  EXPECT_EQ(out, (std::vector<token_id>{6, 2, 5}));
}

TEST(NgramProposer, AgreesWithTheDefinitionOnRandomSequences) {
  std::mt19937 rng(7);
  std::vector<token_id> out;
  for (int round = 0; round < 2000; ++round) {
    const std::size_t vocab = 2 + rng() % 5;
    const std::size_t length = 1 + rng() % 40;
    std::vector<token_id> t(length);
    for (token_id& x : t) x = static_cast<token_id>(rng() % vocab);
    const std::size_t min_n = 1 + rng() % 3;
    const std::size_t max_n = min_n + rng() % 4;
    const std::size_t k = rng() % 6;
    ngram_proposer p(static_cast<std::uint32_t>(min_n), static_cast<std::uint32_t>(max_n));
    p.propose(t, static_cast<std::uint32_t>(k), out);
    ASSERT_EQ(out, reference(t, min_n, max_n, k)) << "round " << round;
  }
}

}  // namespace
}  // namespace pagedserve::spec
