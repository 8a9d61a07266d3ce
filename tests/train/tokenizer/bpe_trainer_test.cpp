// train_bpe on hand-sized vocabularies, against merge sequences worked out by hand.

#include "train/tokenizer/bpe_trainer.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace pagedserve::train {
namespace {

// The merges as "left right" strings (the test words are ASCII letters, whose byte-level form
// is the letter itself).
std::vector<std::string> merges_of(const bpe_vocabulary& vocab) {
  std::vector<std::string> out;
  for (const bpe_merge& m : vocab.merges) {
    out.push_back(vocab.tokens[static_cast<std::size_t>(m.pair.left)] + " " +
                  vocab.tokens[static_cast<std::size_t>(m.pair.right)]);
  }
  return out;
}

std::vector<std::string> train(const word_count_map& words, std::size_t num_tokens = 1000) {
  return merges_of(train_bpe(words, num_tokens));
}

// Sennrich, Haddow and Birch (2016), "Neural Machine Translation of Rare Words with Subword
// Units", Algorithm 1: the vocabulary {low: 5, lower: 2, newest: 6, widest: 3}. Their words end
// in </w>, ours do not (byte-level BPE has no end-of-word symbol), so the sequences agree on
// the first two merges ("e s" 9, "es t" 9) and part ways at their third ("est </w>"). Worked by
// hand (ids: d 100, e 101, i 105, l 108, n 110, o 111, r 114, s 115, t 116, w 119; new tokens
// from 256 on):
//   counts: e s 9, s t 9, w e 8, l o 7, o w 7, n e 6, e w 6, w i 3, i d 3, d e 3, e r 2
//    1. "e s" (9; ties with "s t" 9: (101,115) < (115,116))             es = 256
//    2. "es t" (9)                                                      est = 257
//    3. "l o" (7; ties with "o w": (108,111) < (111,119))               lo = 258
//    4. "lo w" (7)                                                      low = 259
//   left: low | low e r | n e w est | w i d est: 6 each for "n e", "e w", "w est"
//    5. "e w" ((101,119) beats (110,101) and (119,257))                 ew = 260
//    6. "n ew" (6; ties with "ew est": (110,260) < (260,257))           new = 261
//    7. "new est" (6)                                                   newest = 262
//   left: 3 each for "w i", "i d", "d est"; 2 each for "low e", "e r"
//    8. "d est" ((100,257) is the smallest)                             dest = 263
//    9. "i dest" ((105,263) < (119,105))                                idest = 264
//   10. "w idest" (3)                                                   widest = 265
//   11. "e r" (2; (101,114) < (259,101))                                er = 266
//   12. "low er" (2), and every word is one token: no pair is left.
TEST(BpeTrainer, SennrichToyVocabularyMergesInTheHandWorkedOrder) {
  const word_count_map words{{"low", 5}, {"lower", 2}, {"newest", 6}, {"widest", 3}};
  const std::vector<std::string> expected{"e s",     "es t",  "l o",    "lo w",    "e w", "n ew",
                                          "new est", "d est", "i dest", "w idest", "e r", "low er"};
  EXPECT_EQ(train(words), expected);
}

TEST(BpeTrainer, EveryTokenSpellsItsMergedPair) {
  const auto vocab = train_bpe({{"low", 5}, {"lower", 2}, {"newest", 6}, {"widest", 3}}, 1000);
  ASSERT_EQ(vocab.tokens.size(), 256u + 12u);
  EXPECT_EQ(vocab.tokens[static_cast<std::size_t>('a')], "a");
  EXPECT_EQ(vocab.tokens[262], "newest");
  EXPECT_EQ(vocab.merges[6].merged, 262);
}

TEST(BpeTrainer, TiesGoToTheSmallestLeftIdThenRightId) {
  // "a b" and "c d" both occur once: (97,98) < (99,100), whatever the words' order.
  EXPECT_EQ(train({{"cd", 1}, {"ab", 1}}), (std::vector<std::string>{"a b", "c d"}));
  // "aba": "a b" and "b a" once each; (97,98) < (98,97).
  EXPECT_EQ(train({{"aba", 1}}), (std::vector<std::string>{"a b", "ab a"}));
  // Same left id: the smaller right id first.
  EXPECT_EQ(train({{"ac", 1}, {"ab", 1}}), (std::vector<std::string>{"a b", "a c"}));
}

TEST(BpeTrainer, AHigherCountBeatsSmallerIds) {
  EXPECT_EQ(train({{"ab", 2}, {"zz", 3}}), (std::vector<std::string>{"z z", "a b"}));
}

TEST(BpeTrainer, OverlappingPairsMergeLeftToRight) {
  // "aaa" holds "a a" twice (overlapping) and becomes "aa a"; "aaaa" becomes "aa aa".
  EXPECT_EQ(train({{"aaa", 1}}), (std::vector<std::string>{"a a", "aa a"}));
  EXPECT_EQ(train({{"aaaa", 1}}), (std::vector<std::string>{"a a", "aa aa"}));
}

TEST(BpeTrainer, StopsAtTheRequestedNumberOfTokens) {
  const auto vocab = train_bpe({{"low", 5}, {"lower", 2}, {"newest", 6}, {"widest", 3}}, 258);
  EXPECT_EQ(merges_of(vocab), (std::vector<std::string>{"e s", "es t"}));
  EXPECT_EQ(vocab.tokens.size(), 258u);
}

TEST(BpeTrainer, NoWordsMeansOnlyTheBytes) {
  const auto vocab = train_bpe({}, 4096);
  EXPECT_EQ(vocab.tokens.size(), 256u);
  EXPECT_TRUE(vocab.merges.empty());
}

}  // namespace
}  // namespace pagedserve::train
