// choice_to_gbnf: exactly one of the strings, whatever characters they hold.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "runtime/grammar/compiled_grammar.h"
#include "runtime/grammar/grammar_matcher.h"
#include "runtime/grammar/schema_grammar.h"
#include "tests/runtime/grammar/byte_vocabulary.h"

namespace pagedserve::grammar {
namespace {

using testing::byte_vocabulary;
using testing::matches;

TEST(ChoiceGrammar, OneLiteralPerChoice) {
  std::vector<std::string> choices = {"yes", "no", "say \"hi\"\\\n"};
  EXPECT_EQ(*choice_to_gbnf(choices), "root ::= \"yes\" | \"no\" | \"say \\\"hi\\\"\\\\\\n\"\n");
}

TEST(ChoiceGrammar, AcceptsExactlyTheChoices) {
  std::vector<std::string> choices = {"positive", "negative", "a\"b\\c\n\t", "\xC3\xA9t\xC3\xA9"};
  auto gbnf = choice_to_gbnf(choices);
  ASSERT_TRUE(gbnf.ok());
  auto grammar = compile_gbnf(*gbnf, byte_vocabulary());
  ASSERT_TRUE(grammar.ok()) << grammar.err().message << "\n" << *gbnf;
  for (const auto& choice : choices) EXPECT_TRUE(matches(*grammar, choice)) << choice;
  for (std::string_view text : {"pos", "positivee", "neutral", "", "a\"b\\c"}) {
    EXPECT_FALSE(matches(*grammar, text)) << text;
  }
}

TEST(ChoiceGrammar, EmptyListIsInvalid) {
  auto gbnf = choice_to_gbnf({});
  ASSERT_FALSE(gbnf.ok());
  EXPECT_EQ(gbnf.err().code, error_code::invalid_argument);
}

}  // namespace
}  // namespace pagedserve::grammar
