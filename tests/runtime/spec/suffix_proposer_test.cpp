// Suffix decoding's proposer (suffix_proposer.h): hand-worked examples, the store's bounds,
// and random histories against a reference written from the definition over plain lists of
// outputs (no index, no ring buffer, no eviction bookkeeping).

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>

#include "runtime/spec/suffix_proposer.h"

namespace pagedserve::spec {
namespace {

using tokens = std::vector<token_id>;

tokens propose(suffix_proposer& p, const tokens& context, std::uint32_t k) {
  tokens out;
  p.propose(context, k, out);
  return out;
}

TEST(SuffixProposer, FollowsWhatMostEarlierOutputsDidAfterTheSameSuffix) {
  suffix_proposer p({24, 100, 0.1f});
  p.add_finished(tokens{1, 2, 3, 4, 5});
  p.add_finished(tokens{1, 2, 3, 9, 9});
  p.add_finished(tokens{1, 2, 3, 4, 7});
  // "2 3" matched in all three: 4 (two of three), then 5 or 7 (one each: the lower id), then
  // the end of that output.
  EXPECT_EQ(propose(p, {8, 8, 2, 3}, 8), (tokens{4, 5}));
  EXPECT_EQ(propose(p, {8, 8, 2, 3}, 1), (tokens{4}));
  // A longer match wins over frequency: "9 1 2 3" ... only the second output has "3 9".
  EXPECT_EQ(propose(p, {5, 3, 9}, 8), (tokens{9}));
  // A token's share must reach min_token_prob.
  suffix_proposer strict({24, 100, 0.6f});
  strict.add_finished(tokens{1, 2, 3, 4, 5});
  strict.add_finished(tokens{1, 2, 3, 9, 9});
  strict.add_finished(tokens{1, 2, 3, 4, 7});
  EXPECT_EQ(propose(strict, {2, 3}, 8), (tokens{4}));
  // Nothing stored matches: nothing proposed.
  EXPECT_TRUE(propose(p, {42}, 8).empty());
}

TEST(SuffixProposer, TheSequenceItselfWinsALongerOrEqualMatch) {
  suffix_proposer p({24, 100, 0.1f});
  p.add_finished(tokens{6, 7, 1});
  // Own tokens: "5 6 7" occurred before, followed by 8; the store matches only "6 7".
  EXPECT_EQ(propose(p, {5, 6, 7, 8, 0, 5, 6, 7}, 2), (tokens{8, 0}));
  // Equal lengths ("6 7" both): the sequence's own continuation.
  EXPECT_EQ(propose(p, {6, 7, 3, 4, 6, 7}, 1), (tokens{3}));
}

TEST(SuffixProposer, KeepsOnlyTheLastRequestsAndBoundsItsStore) {
  suffix_proposer p({24, 2, 0.1f});
  p.add_finished(tokens{1, 2, 3});
  p.add_finished(tokens{4, 5, 6});
  p.add_finished(tokens{7, 8, 9});
  EXPECT_EQ(p.num_cached_outputs(), 2u);
  EXPECT_TRUE(propose(p, {1, 2}, 4).empty()) << "the oldest output was evicted";
  EXPECT_EQ(propose(p, {4, 5}, 4), (tokens{6}));
  for (int i = 0; i < 5000; ++i) p.add_finished(tokens(3000, static_cast<token_id>(i % 50)));
  EXPECT_EQ(p.num_cached_outputs(), 2u);
  EXPECT_EQ(p.num_cached_tokens(), 2 * (k_max_cached_tokens_per_output + 1));
}

// The definition: candidates are the most recent k_max_candidates positions (earlier for the
// sequence itself) holding the last token; the longest backward matches (at most max_depth)
// win; the walk takes the most common next token (lowest id on ties) while its share of the
// remaining matches is at least min_token_prob; the sequence wins ties of length.
tokens reference(const std::vector<tokens>& outputs, const tokens& context, std::uint32_t k,
                 const suffix_options& o) {
  // Each text: a list of tokens with -1 between outputs (as the store keeps them).
  const auto best_of = [&](const tokens& text, std::size_t end, std::vector<std::size_t> cands,
                           std::size_t& length) {
    std::vector<std::size_t> starts;
    length = 0;
    for (const std::size_t i : cands) {
      std::size_t l = 0;
      while (l < o.max_depth && l < context.size() && l <= i && text[i - l] != -1 &&
             text[i - l] == context[context.size() - 1 - l]) {
        ++l;
      }
      if (l == 0 || l < length) continue;
      if (l > length) starts.clear();
      length = l;
      starts.push_back(i + 1);
    }
    tokens out;
    while (out.size() < k && !starts.empty()) {
      std::map<token_id, std::size_t> counts;
      for (const std::size_t q : starts) {
        if (q < end && text[q] != -1) ++counts[text[q]];
      }
      if (counts.empty()) break;
      token_id chosen = counts.begin()->first;
      for (const auto& [t, c] : counts) {
        if (c > counts[chosen]) chosen = t;
      }
      if (static_cast<float>(counts[chosen]) <
          o.min_token_prob * static_cast<float>(starts.size())) {
        break;
      }
      out.push_back(chosen);
      std::vector<std::size_t> next;
      for (const std::size_t q : starts) {
        if (q < end && text[q] == chosen) next.push_back(q + 1);
      }
      starts = next;
    }
    return out;
  };
  tokens store;
  const std::size_t first =
      outputs.size() > o.max_cached_requests ? outputs.size() - o.max_cached_requests : 0;
  for (std::size_t i = first; i < outputs.size(); ++i) {
    store.insert(store.end(), outputs[i].begin(), outputs[i].end());
    store.push_back(-1);
  }
  std::vector<std::size_t> theirs;
  for (std::size_t i = store.size(); i-- > 0 && theirs.size() < k_max_candidates;) {
    if (store[i] == context.back()) theirs.push_back(i);
  }
  std::reverse(theirs.begin(), theirs.end());
  std::vector<std::size_t> own;
  for (std::size_t i = context.size() - 1; i-- > 0 && own.size() < k_max_candidates;) {
    if (context[i] == context.back()) own.push_back(i);
  }
  std::size_t own_length = 0;
  std::size_t their_length = 0;
  const tokens mine = best_of(context, context.size(), own, own_length);
  const tokens other = best_of(store, store.size(), theirs, their_length);
  if (own_length >= their_length && own_length > 0) return mine;
  return their_length > 0 ? other : tokens{};
}

TEST(SuffixProposer, AgreesWithTheDefinitionOnRandomHistories) {
  std::mt19937 rng(5);
  for (int round = 0; round < 300; ++round) {
    const suffix_options o{static_cast<std::uint32_t>(1 + rng() % 6),
                           static_cast<std::uint32_t>(1 + rng() % 5),
                           static_cast<float>(rng() % 5) / 10.0f};
    suffix_proposer p(o);
    std::vector<tokens> outputs;
    const token_id vocab = static_cast<token_id>(2 + rng() % 4);
    for (int request = 0; request < 12; ++request) {
      tokens out(1 + rng() % 15);
      for (token_id& t : out) t = static_cast<token_id>(rng() % static_cast<unsigned>(vocab));
      outputs.push_back(out);
      p.add_finished(out);
      tokens context(1 + rng() % 12);
      for (token_id& t : context) t = static_cast<token_id>(rng() % static_cast<unsigned>(vocab));
      const auto k = static_cast<std::uint32_t>(rng() % 7);
      ASSERT_EQ(propose(p, context, k), reference(outputs, context, k, o))
          << "round " << round << " request " << request;
    }
  }
}

}  // namespace
}  // namespace pagedserve::spec
