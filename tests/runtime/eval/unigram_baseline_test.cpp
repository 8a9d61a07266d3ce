#include "runtime/eval/unigram_baseline.h"

#include <gtest/gtest.h>

#include <cmath>

namespace pagedserve::eval {
namespace {

// Counts {3, 1, 0, 0}: 4 tokens counted, vocabulary 4, so p(t) = (count + 1) / 8:
// p(0) = 1/2, p(1) = 1/4, p(2) = p(3) = 1/8. The line [9, 0, 1, 2] scores its last three
// tokens: (ln 2 + 2 ln 2 + 3 ln 2) / 3 = 2 ln 2, a perplexity of 4.
TEST(UnigramBaseline, AddOneSmoothedCountsScoreEveryTokenAfterTheFirst) {
  const unigram_baseline unigram({3, 1, 0, 0});
  EXPECT_EQ(unigram.num_counted(), 4U);
  const std::vector<std::vector<token_id>> lines = {{3, 0, 1, 2}};
  EXPECT_NEAR(unigram.mean_nll(lines), 2.0 * std::log(2.0), 1e-12);
  EXPECT_NEAR(std::exp(unigram.mean_nll(lines)), 4.0, 1e-12);
}

// Two lines pool their positions: [0, 3] scores ln 8, [2, 0] scores ln 2: mean 2 ln 2.
TEST(UnigramBaseline, LinesPoolTheirScoredTokens) {
  const unigram_baseline unigram({3, 1, 0, 0});
  const std::vector<std::vector<token_id>> lines = {{0, 3}, {2, 0}, {1}};
  EXPECT_NEAR(unigram.mean_nll(lines), (std::log(8.0) + std::log(2.0)) / 2.0, 1e-12);
}

}  // namespace
}  // namespace pagedserve::eval
