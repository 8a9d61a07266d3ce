// regex_to_gbnf: the ECMAScript subset, matched in full, over a byte vocabulary.
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

void expect_language(std::string_view pattern, const std::vector<std::string>& accepted,
                     const std::vector<std::string>& rejected) {
  auto gbnf = regex_to_gbnf(pattern);
  ASSERT_TRUE(gbnf.ok()) << pattern << ": " << gbnf.err().message;
  auto grammar = compile_gbnf(*gbnf, byte_vocabulary());
  ASSERT_TRUE(grammar.ok()) << grammar.err().message << "\n" << *gbnf;
  for (const auto& text : accepted) EXPECT_TRUE(matches(*grammar, text)) << pattern << " " << text;
  for (const auto& text : rejected) {
    EXPECT_FALSE(matches(*grammar, text)) << pattern << " " << text;
  }
}

error regex_error(std::string_view pattern) {
  auto gbnf = regex_to_gbnf(pattern);
  EXPECT_FALSE(gbnf.ok()) << pattern;
  return gbnf.ok() ? error{} : gbnf.err();
}

TEST(RegexGrammar, TextOfSmallPatterns) {
  EXPECT_EQ(*regex_to_gbnf("abc"), "root ::= \"abc\"\n");
  EXPECT_EQ(*regex_to_gbnf("a|bc"), "root ::= \"a\" | \"bc\"\n");
  EXPECT_EQ(*regex_to_gbnf("[a-c]+x?"), "root ::= [a-c]+ \"x\"?\n");
  EXPECT_EQ(*regex_to_gbnf("^\\d{2,3}$"), "root ::= [0-9]{2,3}\n");
  EXPECT_EQ(*regex_to_gbnf("(?:ab)*"), "root ::= ( \"ab\" )*\n");
  EXPECT_EQ(*regex_to_gbnf("[^\"\\\\]"), "root ::= [^\"\\\\]\n");
}

TEST(RegexGrammar, LiteralsAndEscapes) {
  expect_language("a\\.b\\/c", {"a.b/c"}, {"axb/c", "a.b\\/c"});
  expect_language("\\(\\*\\)\\[\\]\\{\\}\\|\\?\\+\\^\\$\\\\", {"(*)[]{}|?+^$\\"}, {""});
  expect_language("\\x41\\u0042\\n\\t\\r", {"AB\n\t\r"}, {"AB"});
  expect_language("\xC3\xA9t\xC3\xA9", {"\xC3\xA9t\xC3\xA9"}, {"ete"});
  expect_language("\\u00e9|\\uD83D\\uDE00", {"\xC3\xA9", "\xF0\x9F\x98\x80"}, {"e"});
}

TEST(RegexGrammar, ClassesAndShorthands) {
  expect_language("[a-cx]", {"a", "b", "c", "x"}, {"d", "ab", ""});
  expect_language("[^a-c]", {"d", "\n", "\xC3\xA9"}, {"a", "c"});
  expect_language("[\\d_-]+", {"0-_9"}, {"a"});
  expect_language("\\w+", {"abc_09Z"}, {"a-b", ""});
  expect_language("\\W", {"-", " "}, {"a", "_"});
  expect_language("\\s\\S", {" a", "\ta"}, {"a ", "  "});
  expect_language("\\D", {"a"}, {"5"});
  expect_language("[\\]\\-\\\\]", {"]", "-", "\\"}, {"a"});
  expect_language(".", {"a", "\xC3\xA9", "\t"}, {"\n", "ab"});
  expect_language("[\\b]", {"\b"}, {"b"});
}

TEST(RegexGrammar, GroupsAlternationAndQuantifiers) {
  expect_language("(ab|cd)+", {"ab", "cdab"}, {"", "abc"});
  expect_language("x(?:yz)?", {"x", "xyz"}, {"xy"});
  expect_language("(?<word>ab)c", {"abc"}, {"ab"});
  expect_language("a{2}", {"aa"}, {"a", "aaa"});
  expect_language("a{2,}", {"aa", "aaaaa"}, {"a"});
  expect_language("a{2,4}", {"aa", "aaaa"}, {"a", "aaaaa"});
  expect_language("a+?b*?c??", {"a", "abbc"}, {"b"});
  expect_language("a{0}b", {"b"}, {"ab"});
  expect_language("a{,2}", {"a{,2}"}, {"aa"});  // not a quantifier: a literal brace
  expect_language("|a", {"", "a"}, {"b"});
  expect_language("^abc$|^x$", {"abc", "x"}, {"abcx"});
}

TEST(RegexGrammar, NestedQuantifiersMatchWithoutBacktracking) {
  expect_language("(a+)+b", {"ab", "aaaab", std::string(200, 'a') + "b"},
                  {"aaaa", std::string(30, 'a') + "c", "b"});
  expect_language("(a|aa)*c", {std::string(100, 'a') + "c"}, {std::string(100, 'a')});
}

TEST(RegexGrammar, UnsupportedConstructsAreNamed) {
  struct named_case {
    std::string pattern;
    std::string mentions;
  };
  for (const auto& [pattern, mentions] : std::vector<named_case>{{"(a)\\1", "backreference"},
                                                                 {"(?<n>a)\\k<n>", "backreference"},
                                                                 {"a(?=b)", "lookahead"},
                                                                 {"a(?!b)", "lookahead"},
                                                                 {"(?<=a)b", "lookbehind"},
                                                                 {"\\bword", "word boundary"},
                                                                 {"\\p{L}", "property"},
                                                                 {"a^b", "'^'"},
                                                                 {"a$b", "'$'"}}) {
    auto err = regex_error(pattern);
    EXPECT_EQ(err.code, error_code::unsupported) << pattern;
    EXPECT_NE(err.message.find(mentions), std::string::npos) << err.message;
  }
}

TEST(RegexGrammar, InvalidPatternsGiveTheOffset) {
  struct offset_case {
    std::string pattern;
    std::string offset;
  };
  for (const auto& [pattern, offset] : std::vector<offset_case>{{"(ab", "offset 0"},
                                                                {"ab)", "offset 2"},
                                                                {"x[a-", "offset 1"},
                                                                {"*a", "offset 0"},
                                                                {"a**", "offset 2"},
                                                                {"a{3,2}", "offset 1"},
                                                                {"[z-a]", "offset 1"},
                                                                {"ab\\", "offset 2"},
                                                                {"\\x4", "offset 0"}}) {
    auto err = regex_error(pattern);
    EXPECT_EQ(err.code, error_code::invalid_argument) << pattern;
    EXPECT_NE(err.message.find(offset), std::string::npos) << pattern << ": " << err.message;
  }
  EXPECT_EQ(regex_error(std::string(200, '(') + std::string(200, ')')).code,
            error_code::invalid_argument);
}

}  // namespace
}  // namespace pagedserve::grammar
