// grammar_matcher over bytes and tokens: what it accepts and refuses, UTF-8 classes split
// across calls, exact repetition counts, accepting and terminated states, and a state left
// as it was by a refused input.

#include <string>
#include <string_view>

#include <gtest/gtest.h>

#include "runtime/grammar/compiled_grammar.h"
#include "runtime/grammar/grammar_matcher.h"

namespace pagedserve::grammar {
namespace {

// Tokens: 0 "a", 1 "b", 2 "ab", 3 <eos> (stop), 4 a special token with no bytes.
constexpr token_id tok_a = 0, tok_b = 1, tok_ab = 2, tok_eos = 3, tok_special = 4;

std::shared_ptr<const compiled_grammar> compile(std::string_view gbnf) {
  auto grammar = compile_gbnf(gbnf, token_vocabulary::create({"a", "b", "ab", "", ""}, {3}));
  EXPECT_TRUE(grammar.ok()) << grammar.err().message;
  return grammar ? *grammar : nullptr;
}

bool matches(std::string_view gbnf, std::string_view text) {
  grammar_matcher matcher(compile(gbnf));
  return matcher.accept_bytes(text) && matcher.is_accepting();
}

TEST(GrammarMatcher, AcceptsSentencesAndRefusesTheRest) {
  const std::string_view g = R"(root ::= "x" ("=" [0-9]+)? ";")";
  EXPECT_TRUE(matches(g, "x;"));
  EXPECT_TRUE(matches(g, "x=42;"));
  EXPECT_FALSE(matches(g, "x=;"));
  EXPECT_FALSE(matches(g, "x=4"));
  EXPECT_FALSE(matches(g, "y;"));
}

TEST(GrammarMatcher, RepetitionCountsAreExact) {
  const std::string_view g = R"(root ::= "a"{2,4})";
  EXPECT_FALSE(matches(g, "a"));
  EXPECT_TRUE(matches(g, "aa"));
  EXPECT_TRUE(matches(g, "aaa"));
  EXPECT_TRUE(matches(g, "aaaa"));
  EXPECT_FALSE(matches(g, "aaaaa"));
  EXPECT_FALSE(matches(R"(root ::= "a"{3})", "aa"));
  EXPECT_TRUE(matches(R"(root ::= "a"{3})", "aaa"));
  EXPECT_FALSE(matches(R"(root ::= "a"{3})", "aaaa"));
}

TEST(GrammarMatcher, Utf8ClassesMatchWholeCharacters) {
  const std::string_view greek = R"(root ::= [α-ω]+)";
  EXPECT_TRUE(matches(greek, "\xce\xb1\xcf\x89"));  // αω
  EXPECT_FALSE(matches(greek, "\xce\x91"));         // Α (capital) is outside
  EXPECT_FALSE(matches(greek, "\xce"));             // half a character is not complete
  const std::string_view not_greek = R"(root ::= [^α-ω"])";
  EXPECT_TRUE(matches(not_greek, "x"));
  EXPECT_TRUE(matches(not_greek, "\xe2\x82\xac"));      // €
  EXPECT_TRUE(matches(not_greek, "\xf0\x9f\x98\x80"));  // 😀
  EXPECT_FALSE(matches(not_greek, "\xce\xb2"));         // β
  EXPECT_FALSE(matches(not_greek, "\""));
}

TEST(GrammarMatcher, DotIsAnyValidlyEncodedCodePoint) {
  const std::string_view g = "root ::= .";
  EXPECT_TRUE(matches(g, "\x7f"));
  EXPECT_TRUE(matches(g, "\xdf\xbf"));
  EXPECT_TRUE(matches(g, "\xf4\x8f\xbf\xbf"));   // U+10FFFF
  EXPECT_FALSE(matches(g, "\xc0\x80"));          // overlong
  EXPECT_FALSE(matches(g, "\xed\xa0\x80"));      // a surrogate
  EXPECT_FALSE(matches(g, "\xf4\x90\x80\x80"));  // past U+10FFFF
  EXPECT_FALSE(matches(g, "\x80"));              // a lone continuation byte
}

TEST(GrammarMatcher, CharactersMaySplitAcrossCalls) {
  grammar_matcher matcher(compile(R"(root ::= "<" [α-ω] ">")"));
  EXPECT_TRUE(matcher.accept_bytes("<\xce"));
  EXPECT_FALSE(matcher.is_accepting());
  EXPECT_FALSE(matcher.accept_bytes("\x91"));  // Α: not in the class, refused
  EXPECT_TRUE(matcher.accept_bytes("\xb3"));   // γ
  EXPECT_TRUE(matcher.accept_bytes(">"));
  EXPECT_TRUE(matcher.is_accepting());
}

TEST(GrammarMatcher, RefusedInputLeavesTheStateAsItWas) {
  grammar_matcher matcher(compile(R"(root ::= "ab" "c"*)"));
  EXPECT_TRUE(matcher.accept_bytes("a"));
  EXPECT_FALSE(matcher.accept_bytes("bx"));  // "b" alone would pass: all or nothing
  EXPECT_FALSE(matcher.is_accepting());
  EXPECT_TRUE(matcher.accept_bytes("bcc"));
  EXPECT_TRUE(matcher.is_accepting());
  EXPECT_FALSE(matcher.is_terminated());  // more c's may follow
}

TEST(GrammarMatcher, AcceptingAndTerminated) {
  grammar_matcher matcher(compile(R"(root ::= "a" "b"?)"));
  EXPECT_FALSE(matcher.is_accepting());
  EXPECT_FALSE(matcher.accept_token(tok_eos));  // not complete yet
  EXPECT_TRUE(matcher.accept_token(tok_a));
  EXPECT_TRUE(matcher.is_accepting());
  EXPECT_FALSE(matcher.is_terminated());
  EXPECT_TRUE(matcher.accept_token(tok_b));
  EXPECT_TRUE(matcher.is_terminated());  // complete and nothing can follow
  EXPECT_FALSE(matcher.accept_token(tok_b));
  EXPECT_TRUE(matcher.accept_token(tok_eos));
  EXPECT_TRUE(matcher.is_terminated());
  EXPECT_FALSE(matcher.accept_token(tok_eos));  // nothing after a stop token
  EXPECT_FALSE(matcher.accept_bytes("b"));
}

TEST(GrammarMatcher, TokensAreAcceptedByTheirBytes) {
  grammar_matcher matcher(compile(R"(root ::= "ab" "a")"));
  EXPECT_FALSE(matcher.accept_token(tok_special));  // no bytes, not a stop token
  EXPECT_FALSE(matcher.accept_token(-1));
  EXPECT_FALSE(matcher.accept_token(99));
  EXPECT_TRUE(matcher.accept_token(tok_ab));
  EXPECT_FALSE(matcher.accept_token(tok_b));
  EXPECT_TRUE(matcher.accept_token(tok_a));
  EXPECT_TRUE(matcher.accept_token(tok_eos));
}

TEST(GrammarMatcher, AmbiguousAlternativesKeepEveryParse) {
  const std::string_view g = R"(root ::= ("ab" | "a" "b" "c") "d"? | "abce")";
  EXPECT_TRUE(matches(g, "ab"));
  EXPECT_TRUE(matches(g, "abd"));
  EXPECT_TRUE(matches(g, "abc"));
  EXPECT_TRUE(matches(g, "abcd"));
  EXPECT_TRUE(matches(g, "abce"));
  EXPECT_FALSE(matches(g, "abde"));
}

TEST(GrammarMatcher, RecursionDeeperThanTheStackBoundIsRefusedNotCrashed) {
  const auto grammar = compile(R"g(root ::= "(" root ")" | "x")g");
  grammar_matcher shallow(grammar);
  EXPECT_TRUE(shallow.accept_bytes(std::string(100, '(') + "x" + std::string(100, ')')));
  EXPECT_TRUE(shallow.is_accepting());
  grammar_matcher deep(grammar);
  bool refused = false;
  for (int i = 0; i < 10'000 && !refused; ++i) refused = !deep.accept_bytes("(");
  EXPECT_TRUE(refused);  // stack depth is bounded (grammar_stacks.h)
}

TEST(GrammarMatcher, MatchersAreIndependentAndMovable) {
  const auto grammar = compile(R"(root ::= "a"+)");
  grammar_matcher first(grammar);
  grammar_matcher second(grammar);
  EXPECT_TRUE(first.accept_bytes("aa"));
  EXPECT_FALSE(second.is_accepting());
  grammar_matcher moved = std::move(first);
  EXPECT_TRUE(moved.is_accepting());
  EXPECT_TRUE(moved.accept_bytes("a"));
}

}  // namespace
}  // namespace pagedserve::grammar
