// Token bitmasks: exact bits over a hand-built vocabulary, the trie walk against a brute
// force (every token tried on a fresh matcher) over random grammars and walks, the mask
// cache against fresh compiles, and a JSON document walked token by token through the
// Llama-3 vocabulary.

#include <algorithm>
#include <initializer_list>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "runtime/grammar/compiled_grammar.h"
#include "runtime/grammar/compiled_grammar_impl.h"
#include "runtime/grammar/grammar_matcher.h"
#include "runtime/tokenizer/byte_level.h"
#include "runtime/tokenizer/tokenizer.h"
#include "tests/runtime/grammar/mask_testing.h"
#include "tests/support/fixtures.h"

namespace pagedserve::grammar {
namespace {

using testing::allowed;
using testing::brute_force;
using testing::compile;
using testing::concat;
using testing::grammar_ptr;

// 0 "a", 1 "b", 2 "ab", 3 "{", 4 "\"", 5 "\xce" (half of α), 6 "α", 7 "ba", 8 "aaa",
// 9 a special token (no bytes), 10 <eos>, 11 "}", 12 "\xb1" (the other half of α).
std::shared_ptr<const token_vocabulary> hand_vocabulary() {
  return token_vocabulary::create(
      {"a", "b", "ab", "{", "\"", "\xce", "\xce\xb1", "ba", "aaa", "", "", "}", "\xb1"}, {10});
}
constexpr token_id eos = 10;

TEST(TokenVocabulary, SortedIdsAndTheirTrieInPreOrder) {
  const auto vocab = token_vocabulary::create({"ab", "", "a", "b", "abc", "a"}, {3, 1, 3});
  EXPECT_EQ(vocab->stop_token_ids(), (std::vector<token_id>{1, 3}));
  EXPECT_TRUE(vocab->is_stop(3));
  EXPECT_FALSE(vocab->is_stop(0));
  EXPECT_EQ(vocab->sorted_ids(), (std::vector<token_id>{2, 5, 0, 4, 3}));
  // Pre-order: root; "a" (sorted 0-1 end there, its subtree 0..4); "ab"; "abc"; "b".
  struct expected_node {
    std::uint32_t subtree_size, sorted_begin, sorted_end, ends, depth;
    char byte;
  };
  const std::vector<expected_node> expected = {{5, 0, 5, 0, 0, 0},
                                               {3, 0, 4, 2, 1, 'a'},
                                               {2, 2, 4, 1, 2, 'b'},
                                               {1, 3, 4, 1, 3, 'c'},
                                               {1, 4, 5, 1, 1, 'b'}};
  ASSERT_EQ(vocab->trie().size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const trie_node& node = vocab->trie()[i];
    const expected_node& want = expected[i];
    EXPECT_EQ(node.subtree_size, want.subtree_size) << i;
    EXPECT_EQ(node.sorted_begin, want.sorted_begin) << i;
    EXPECT_EQ(node.sorted_end, want.sorted_end) << i;
    EXPECT_EQ(node.ends, want.ends) << i;
    EXPECT_EQ(node.depth, want.depth) << i;
    EXPECT_EQ(node.byte, static_cast<std::uint8_t>(want.byte)) << i;
  }
  EXPECT_EQ(vocab->bitmask_words(), 1u);
}

TEST(TokenBitmask, ExactBitsOverAHandBuiltVocabulary) {
  const auto grammar = compile(R"(root ::= "{" "a"+ "b"? [α-ω]* "}")", hand_vocabulary());
  grammar_matcher matcher(grammar);
  EXPECT_EQ(allowed(matcher), (std::vector<token_id>{3}));
  EXPECT_TRUE(matcher.accept_token(3));
  EXPECT_EQ(allowed(matcher), (std::vector<token_id>{0, 2, 8}));
  EXPECT_TRUE(matcher.accept_token(0));
  EXPECT_EQ(allowed(matcher), (std::vector<token_id>{0, 1, 2, 5, 6, 8, 11}));
  EXPECT_TRUE(matcher.accept_token(5));  // half a character: only its other half may follow
  EXPECT_EQ(allowed(matcher), (std::vector<token_id>{12}));
  EXPECT_TRUE(matcher.accept_token(12));
  EXPECT_EQ(allowed(matcher), (std::vector<token_id>{5, 6, 11}));
  EXPECT_TRUE(matcher.accept_token(11));
  EXPECT_EQ(allowed(matcher), (std::vector<token_id>{eos}));  // terminated: stop only
  EXPECT_TRUE(matcher.is_terminated());
  EXPECT_TRUE(matcher.accept_token(eos));
  EXPECT_EQ(allowed(matcher), std::vector<token_id>{});  // after a stop token: nothing
}

TEST(TokenBitmask, StopTokensExactlyWhereTheTextIsComplete) {
  const auto grammar = compile(R"(root ::= "a" "b"*)", hand_vocabulary());
  grammar_matcher matcher(grammar);
  EXPECT_EQ(allowed(matcher), (std::vector<token_id>{0, 2}));
  EXPECT_TRUE(matcher.accept_token(0));
  EXPECT_EQ(allowed(matcher), (std::vector<token_id>{1, eos}));
  EXPECT_TRUE(matcher.accept_token(1));
  EXPECT_EQ(allowed(matcher), (std::vector<token_id>{1, eos}));
}

// A random grammar over a, b and α, with groups, classes, quantifiers and references to
// later rules (no recursion, which the walk does not need to be exercised).
std::string random_grammar(std::mt19937& rng) {
  const std::vector<std::string> atoms = {"\"a\"", "\"b\"", "\"ab\"", "\"α\"", "[ab]",
                                          "[^a]",  ".",     "\"ba\"", "[α-β]"};
  const std::vector<std::string> quantifiers = {"", "", "", "?", "*", "+", "{1,2}", "{2}"};
  const auto pick = [&](std::size_t n) {
    return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng);
  };
  std::string out;
  for (int r = 0; r < 4; ++r) {
    out.append(r == 0 ? "root" : concat({"r", std::to_string(r)})).append(" ::= ");
    const std::size_t num_alternatives = 1 + pick(3);
    for (std::size_t a = 0; a < num_alternatives; ++a) {
      if (a > 0) out.append(" | ");
      const std::size_t num_items = 1 + pick(3);
      for (std::size_t i = 0; i < num_items; ++i) {
        std::string item = atoms[pick(atoms.size())];
        if (r < 3 && pick(4) == 0) item = concat({"r", std::to_string(r + 1 + pick(3 - r))});
        if (pick(5) == 0) item = concat({"(", item, " | ", atoms[pick(atoms.size())], ")"});
        out.append(item).append(quantifiers[pick(quantifiers.size())]).append(" ");
      }
    }
    out.append("\n");
  }
  return out;
}

std::shared_ptr<const token_vocabulary> small_vocabulary() {
  // Every string of length 1..3 over a, b, c and the two bytes of α; a special; a stop.
  const std::vector<std::string> letters = {"a", "b", "c", "\xce", "\xb1"};
  std::vector<std::string> tokens = {"", ""};
  const std::vector<std::string> strings = testing::all_strings(letters, 3);
  tokens.insert(tokens.end(), strings.begin(), strings.end());
  return token_vocabulary::create(tokens, {1});
}

TEST(TokenBitmask, TrieWalkEqualsBruteForceOnRandomGrammars) {
  std::mt19937 rng(7);
  const auto vocab = small_vocabulary();
  int num_checked = 0;
  for (int trial = 0; trial < 60; ++trial) {
    const std::string gbnf = random_grammar(rng);
    auto compiled = compile_gbnf(gbnf, vocab);
    if (!compiled) continue;  // e.g. a repetition of something that can match empty
    const grammar_ptr grammar = *compiled;
    grammar_matcher matcher(grammar);
    std::string history;
    for (int step = 0; step < 8; ++step) {
      const auto mask = allowed(matcher);
      ASSERT_EQ(mask, brute_force(grammar, history)) << gbnf << "after '" << history << "'";
      ++num_checked;
      if (mask.empty() || (mask.size() == 1 && mask[0] == 1)) break;
      const token_id next =
          mask[std::uniform_int_distribution<std::size_t>(0, mask.size() - 1)(rng)];
      if (next == 1) break;
      ASSERT_TRUE(matcher.accept_token(next));
      history += vocab->bytes(next);
    }
  }
  EXPECT_GT(num_checked, 100);
}

TEST(TokenBitmask, CachedMasksEqualFreshOnes) {
  const auto vocab = small_vocabulary();
  const std::string_view gbnf = R"(root ::= ("a" [^"]* "b" | "c"{1,3})+)";
  const grammar_ptr shared = compile(gbnf, vocab);
  std::mt19937 rng(11);
  for (int walk = 0; walk < 5; ++walk) {
    grammar_matcher cached(shared);
    grammar_matcher fresh_history(compile(gbnf, vocab));
    std::string history;
    for (int step = 0; step < 30; ++step) {
      // A fresh compile has an empty cache: its mask is walked, not looked up.
      grammar_matcher fresh(compile(gbnf, vocab));
      ASSERT_TRUE(fresh.accept_bytes(history));
      const auto mask = allowed(cached);
      ASSERT_EQ(mask, allowed(fresh)) << "after '" << history << "'";
      ASSERT_EQ(mask, allowed(cached));  // asked twice: a hit
      const token_id next =
          mask[std::uniform_int_distribution<std::size_t>(0, mask.size() - 1)(rng)];
      if (next == 1) break;
      ASSERT_TRUE(cached.accept_token(next));
      history += vocab->bytes(next);
    }
  }
  EXPECT_GT(shared->masks().num_entries(), 0u);
}

// The Llama-3 vocabulary as the grammar engine sees it: byte-level strings decoded to
// bytes, special tokens without bytes, the end-of-text ids as stop tokens.
struct llama3 {
  std::shared_ptr<const tokenizer> tok;
  std::shared_ptr<const token_vocabulary> vocab;
  std::vector<token_id> stops;
};

const llama3& load_llama3() {
  static const llama3 loaded = [] {
    llama3 out;
    auto tok = tokenizer::load(pagedserve::testing::tokenizers_dir() / "llama3");
    if (!tok) return out;
    out.tok = *tok;
    std::vector<std::string> bytes(out.tok->vocab_size());
    for (std::size_t id = 0; id < bytes.size(); ++id) {
      const auto t = static_cast<token_id>(id);
      const auto text = out.tok->id_to_token(t);
      if (!text || out.tok->is_special(t)) continue;
      if (!byte_level::decode_token(*text, bytes[id])) bytes[id].clear();
    }
    for (const char* name : {"<|end_of_text|>", "<|eot_id|>"}) {
      if (const auto id = out.tok->token_to_id(name)) out.stops.push_back(*id);
    }
    out.vocab = token_vocabulary::create(std::move(bytes), out.stops);
    return out;
  }();
  return loaded;
}

constexpr std::string_view json_gbnf = R"(
root   ::= object
value  ::= object | array | string | number | ("true" | "false" | "null")
object ::= "{" ws ( string ":" ws value ("," ws string ":" ws value)* )? "}"
array  ::= "[" ws ( value ("," ws value)* )? "]"
string ::= "\"" ( [^"\\\x7F\x00-\x1F] | "\\" (["\\/bfnrt] | "u" [0-9a-fA-F]{4}) )* "\""
number ::= ("-"? ([0-9] | [1-9] [0-9]{0,15})) ("." [0-9]+)? ([eE] [-+]? [0-9] [1-9]{0,15})?
ws     ::= | " " | "\n" [ \t]{0,20}
)";

TEST(TokenBitmask, JsonDocumentThroughTheLlama3Vocabulary) {
  const llama3& l = load_llama3();
  ASSERT_TRUE(l.vocab) << "no tokenizer at " << pagedserve::testing::tokenizers_dir();
  ASSERT_EQ(l.vocab->size(), l.tok->vocab_size());
  const grammar_ptr grammar = compile(json_gbnf, l.vocab);
  ASSERT_TRUE(grammar);
  const std::string document =
      R"({"name": "Ada Lovelace", "born": 1815, "tags": ["math", "é\n"], "ok": true})";
  const auto ids = l.tok->encode(document, false);
  ASSERT_GT(ids.size(), 10u);
  grammar_matcher matcher(grammar);
  std::string history;
  for (std::size_t step = 0; step < ids.size(); ++step) {
    const auto mask = allowed(matcher);
    ASSERT_TRUE(std::binary_search(mask.begin(), mask.end(), ids[step])) << "step " << step;
    if (step == 0 || step == ids.size() / 2) {
      ASSERT_EQ(mask, brute_force(grammar, history)) << "step " << step;
    }
    ASSERT_TRUE(matcher.accept_token(ids[step])) << "step " << step;
    history += l.vocab->bytes(ids[step]);
  }
  EXPECT_EQ(history, document);
  EXPECT_TRUE(matcher.is_accepting());
  const auto last = allowed(matcher);
  EXPECT_EQ(last, brute_force(grammar, history));
  for (const token_id stop : l.stops) {
    EXPECT_TRUE(std::binary_search(last.begin(), last.end(), stop));
  }
  EXPECT_TRUE(matcher.accept_token(l.stops.front()));
  EXPECT_TRUE(matcher.is_terminated());
}

}  // namespace
}  // namespace pagedserve::grammar
