// word_counter: Llama 3's pre-tokenization of training text, against pieces cut by hand.

#include "train/tokenizer/word_counts.h"

#include <gtest/gtest.h>

#include <fstream>

#include "tests/support/temp_dir.h"
#include "tests/train/tokenizer/reference_bpe.h"
#include "train/tokenizer/llama3_pre_tokenizer.h"

namespace pagedserve::train {
namespace {

class WordCounts : public ::testing::Test {
 protected:
  std::unique_ptr<pre_tokenizer> pre_ = make_llama3_pre_tokenizer().value();
};

TEST_F(WordCounts, CutsAsLlama3sRegexInTheByteLevelAlphabet) {
  // By hand: "it" (letters), "'s" (contraction), " " (a space before a digit stands alone:
  // \s+(?!\S) backs off to nothing, so \s+), "202" "4" (digits, three at most), "," then
  // " don" (one non-letter, then letters), "'t", "!\n" (punctuation takes the newlines after
  // it). In the byte-level alphabet a space is "Ġ" (U+0120) and a newline "Ċ" (U+010A).
  word_counter counter(*pre_);
  counter.add_text("it's 2024, don't!\n");
  const word_count_map expected{{"it", 1},
                                {"'s", 1},
                                {"\xC4\xA0", 1},
                                {"202", 1},
                                {"4", 1},
                                {",", 1},
                                {"\xC4\xA0"
                                 "don",
                                 1},
                                {"'t", 1},
                                {"!\xC4\x8A", 1}};
  EXPECT_EQ(counter.counts(), expected);
  EXPECT_EQ(counter.num_words(), 9u);
  EXPECT_EQ(counter.num_bytes(), 18u);
}

TEST_F(WordCounts, CountsRepeatsAndKeepsEachLinesNewline) {
  testing::temp_dir dir("pagedserve-word-counts");
  {
    std::ofstream out(dir / "text.txt", std::ios::binary);
    out << "the cat\nthe dog\nthe end";  // the last line has no newline
  }
  word_counter counter(*pre_);
  ASSERT_TRUE(counter.add_file(dir / "text.txt"));
  const word_count_map expected{{"the", 3},
                                {"\xC4\xA0"
                                 "cat",
                                 1},
                                {"\xC4\x8A", 2},
                                {"\xC4\xA0"
                                 "dog",
                                 1},
                                {"\xC4\xA0"
                                 "end",
                                 1}};
  EXPECT_EQ(counter.counts(), expected);
}

TEST_F(WordCounts, AgreesWithTheHandWrittenReferenceOnAsciiText) {
  const std::string text =
      "Mr. O'Neill said: \"We'll pay $1,234.50 -- IT'S final!\"\n\n  Indented\tline...\r\n"
      "x  y   z\n end   ";
  word_counter counter(*pre_);
  counter.add_text(text);
  word_count_map expected;
  for (const std::string& piece : testing::ascii_llama3_pieces(text)) {
    std::string form;
    for (const char c : piece) form += testing::gpt2_byte_char(static_cast<unsigned char>(c));
    ++expected[form];
  }
  EXPECT_EQ(counter.counts(), expected);
}

TEST_F(WordCounts, AMissingFileIsAnError) {
  word_counter counter(*pre_);
  const auto s = counter.add_file("/nonexistent/pagedserve/corpus.txt");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.err().code, error_code::not_found);
}

}  // namespace
}  // namespace pagedserve::train
