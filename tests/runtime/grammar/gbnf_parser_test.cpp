// The GBNF parser through compile_gbnf: every syntax feature on strings it must and must not
// match, each error with the line it names, left recursion, and the compile_limits bounds.

#include <string>
#include <string_view>

#include <gtest/gtest.h>

#include "runtime/grammar/compiled_grammar.h"
#include "runtime/grammar/grammar_matcher.h"

namespace pagedserve::grammar {
namespace {

std::shared_ptr<const token_vocabulary> tiny_vocabulary() {
  return token_vocabulary::create({"a", "b", ""}, {2});
}

result<std::shared_ptr<const compiled_grammar>> compile(std::string_view gbnf,
                                                        const compile_limits& limits = {}) {
  return compile_gbnf(gbnf, tiny_vocabulary(), limits);
}

// Whether the whole of text is a sentence of the grammar.
bool matches(std::string_view gbnf, std::string_view text) {
  auto grammar = compile(gbnf);
  EXPECT_TRUE(grammar.ok()) << grammar.err().message;
  if (!grammar) return false;
  grammar_matcher matcher(*grammar);
  return matcher.accept_bytes(text) && matcher.is_accepting();
}

// The error message of a grammar that must not compile.
std::string error_of(std::string_view gbnf, const compile_limits& limits = {}) {
  auto grammar = compile(gbnf, limits);
  EXPECT_FALSE(grammar.ok());
  if (grammar) return "";
  EXPECT_EQ(grammar.err().code, error_code::invalid_argument);
  return grammar.err().message;
}

TEST(GbnfParser, LiteralsAndEscapes) {
  const std::string_view g = R"(root ::= "a\"b\\c\n\t\x41\u00e9\U0001F600")";
  EXPECT_TRUE(matches(g, "a\"b\\c\n\tA\xc3\xa9\xf0\x9f\x98\x80"));
  EXPECT_FALSE(matches(g, "a\"b\\c\n\tA"));
}

TEST(GbnfParser, ClassesRangesAndNegation) {
  const std::string_view g = R"(root ::= [a-c_\-\]] [^0-9])";
  EXPECT_TRUE(matches(g, "bx"));
  EXPECT_TRUE(matches(g, "_x"));
  EXPECT_TRUE(matches(g, "-x"));
  EXPECT_TRUE(matches(g, "]x"));
  EXPECT_FALSE(matches(g, "dx"));
  EXPECT_FALSE(matches(g, "a5"));
  EXPECT_TRUE(matches(g, "a\xce\xb1"));  // a negated class takes multi-byte characters
}

TEST(GbnfParser, DotGroupsAlternationAndRuleReferences) {
  const std::string_view g = R"(
root ::= greeting ("," . | "!")   # a comment
greeting ::= "hi" | "yo"
)";
  EXPECT_TRUE(matches(g, "hi,z"));
  EXPECT_TRUE(matches(g, "yo,\xe2\x82\xac"));
  EXPECT_TRUE(matches(g, "yo!"));
  EXPECT_FALSE(matches(g, "hi,"));
  EXPECT_FALSE(matches(g, "hey!"));
}

TEST(GbnfParser, Quantifiers) {
  EXPECT_TRUE(matches(R"(root ::= "a"* "b")", "b"));
  EXPECT_TRUE(matches(R"(root ::= "a"* "b")", "aaab"));
  EXPECT_FALSE(matches(R"(root ::= "a"+ "b")", "b"));
  EXPECT_TRUE(matches(R"(root ::= "a"+ "b")", "ab"));
  EXPECT_TRUE(matches(R"(root ::= "a"? "b")", "b"));
  EXPECT_FALSE(matches(R"(root ::= "a"? "b")", "aab"));
  EXPECT_TRUE(matches(R"(root ::= "ab"{3})", "ababab"));
  EXPECT_FALSE(matches(R"(root ::= "ab"{3})", "abab"));
  EXPECT_TRUE(matches(R"(root ::= "a"{2,})", "aaaaa"));
  EXPECT_FALSE(matches(R"(root ::= "a"{2,})", "a"));
  EXPECT_TRUE(matches(R"(root ::= ("a" | "b"){0,2})", ""));
  EXPECT_TRUE(matches(R"(root ::= ("a" | "b"){ 1 , 2 })", "ba"));
}

TEST(GbnfParser, RulesContinueOnFollowingLinesAndInsideParentheses) {
  const std::string_view g = R"(root ::= "a"
    | "b"
    "c"
item ::= (
  "x" |
  "y"
)
)";
  EXPECT_TRUE(matches(g, "a"));
  EXPECT_TRUE(matches(g, "bc"));
  EXPECT_FALSE(matches(g, "b"));
}

TEST(GbnfParser, SyntaxErrorsNameTheLine) {
  EXPECT_EQ(error_of("# a grammar\nroot = \"a\""), "line 2: expected '::=' after rule name 'root'");
  // A line that does not start `name ::=` continues the rule above it.
  EXPECT_EQ(error_of("root ::= \"a\"\nx = \"b\""), "line 2: unexpected '='");
  EXPECT_NE(error_of("root ::= \"abc").find("line 1: unterminated string literal"),
            std::string::npos);
  EXPECT_NE(error_of("root ::= \"a\"\n\nitem ::= [a-").find("line 3: unterminated character"),
            std::string::npos);
  EXPECT_NE(error_of("root ::= \"\\q\"").find("unknown escape"), std::string::npos);
  EXPECT_NE(error_of("root ::= (\"a\"").find("expected ')'"), std::string::npos);
  EXPECT_NE(error_of("root ::= \"a\" @").find("line 1: unexpected '@'"), std::string::npos);
  EXPECT_NE(error_of("root ::= [z-a]").find("out of order"), std::string::npos);
  EXPECT_NE(error_of("root ::= \"a\"{3,2}").find("n < m"), std::string::npos);
  EXPECT_NE(error_of("root ::= \"\\uD800\"").find("not a valid code point"), std::string::npos);
}

TEST(GbnfParser, UndefinedMissingAndDuplicateRules) {
  EXPECT_EQ(error_of("root ::= \"a\"\n\nmore ::= item\n"), "line 3: undefined rule 'item'");
  EXPECT_EQ(error_of("start ::= \"a\""), "line 1: the grammar has no rule 'root'");
  EXPECT_EQ(error_of("root ::= \"a\"\nroot ::= \"b\""),
            "line 2: rule 'root' is defined twice (first on line 1)");
}

TEST(GbnfParser, LeftRecursionIsRefused) {
  EXPECT_NE(error_of("root ::= root \"a\" | \"b\"").find("line 1: rule 'root' is left-recursive"),
            std::string::npos);
  // Indirect: root -> a -> b -> root.
  EXPECT_NE(error_of("root ::= a\na ::= b \"x\"\nb ::= root | \"y\"").find("left-recursive"),
            std::string::npos);
  // Through a prefix that can match empty.
  EXPECT_NE(error_of("root ::= opt root \"x\" | \"y\"\nopt ::= \"o\"?").find("left-recursive"),
            std::string::npos);
  // A repetition of something that matches empty would loop the same way.
  EXPECT_NE(error_of("root ::= (\"a\"?)*").find("left-recursive"), std::string::npos);
  // Recursion after a byte is fine.
  EXPECT_TRUE(matches("root ::= \"(\" root \")\" | \"x\"", "((x))"));
}

TEST(GbnfParser, BoundsOfCompileLimits) {
  std::string wide = "root ::= \"a0\"";
  for (int i = 1; i < 10'000; ++i) wide.append(" | \"a").append(std::to_string(i)).append("\"");
  EXPECT_TRUE(matches(wide, "a9999"));
  EXPECT_NE(error_of("root ::= \"x\"{100000}").find("max_repetition"), std::string::npos);
  EXPECT_NE(error_of("root ::= \"x\"{5,100000}").find("max_repetition"), std::string::npos);
  std::string huge = "root ::= \"";
  huge.append((1 << 20) + 1, 'x').append("\"");
  EXPECT_NE(error_of(huge).find("max_grammar_bytes"), std::string::npos);
  compile_limits small;
  small.max_rules = 2;
  EXPECT_NE(error_of("root ::= a b\na ::= \"a\"\nb ::= \"b\"", small)
                .find("line 1: more than "
                      "max_rules (2)"),
            std::string::npos);
  small = {};
  small.max_elements = 100;
  EXPECT_TRUE(compile("root ::= \"ab\"{60}", small).ok());  // "ab" is wrapped: 60 references
  EXPECT_NE(error_of("root ::= \"ab\"{200}", small).find("max_elements"), std::string::npos);
  // 101 repetitions of 10,000 elements each pass the default bound of a million.
  std::string many = "root ::=";
  for (int i = 0; i < 101; ++i) many.append(" \"x\"{10000}");
  EXPECT_NE(error_of(many).find("max_elements (1000000)"), std::string::npos);
}

TEST(GbnfParser, DeepNestingCompilesOrIsRefusedWithoutRecursingDeeply) {
  const auto nested = [](std::size_t depth) {
    std::string g = "root ::= ";
    g.append(depth, '(').append("\"a\"").append(depth, ')');
    return g;
  };
  EXPECT_TRUE(matches(nested(200), "a"));
  EXPECT_NE(error_of(nested(1'000)).find("nested deeper"), std::string::npos);
  EXPECT_NE(error_of(nested(100'000)).find("nested deeper"), std::string::npos);
  // A chain of 10,000 rules is no recursion for the parser nor the matcher.
  std::string chain = "root ::= r0\n";
  for (int i = 0; i < 10'000; ++i) {
    chain.append("r").append(std::to_string(i)).append(" ::= ");
    if (i + 1 < 10'000) {
      chain.append("r").append(std::to_string(i + 1)).append("\n");
    } else {
      chain.append("\"z\"\n");
    }
  }
  EXPECT_TRUE(matches(chain, "z"));
}

}  // namespace
}  // namespace pagedserve::grammar
