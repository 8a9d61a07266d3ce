// Token classes (xgrammar's adaptive token mask) and what they stand on: the vocabulary trie
// against a scan of the sorted tokens, class storage, the class cache's bound, the walk's
// state table, and masks built from classes against a brute force (every token tried on a
// fresh matcher) on grammars whose stacks run deeper than the frames classes look at.

#include <algorithm>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "runtime/grammar/compiled_grammar_impl.h"
#include "runtime/grammar/grammar_stacks.h"
#include "runtime/grammar/token_classes.h"
#include "runtime/grammar/token_mask_walk.h"
#include "runtime/grammar/walk_states.h"
#include "tests/runtime/grammar/mask_testing.h"

namespace pagedserve::grammar {
namespace {

using testing::allowed;
using testing::brute_force;
using testing::compile;
using testing::grammar_ptr;
using testing::mask_ids;

// Every string of length 1..3 over a, b and the JSON-ish bytes " [ ] , (258 tokens); a stop.
std::shared_ptr<const token_vocabulary> bracket_vocabulary() {
  const std::vector<std::string> letters = {"a", "b", "\"", "[", "]", ","};
  std::vector<std::string> tokens = {""};
  const std::vector<std::string> strings = testing::all_strings(letters, 3);
  tokens.insert(tokens.end(), strings.begin(), strings.end());
  return token_vocabulary::create(tokens, {0});
}

// The state of `stacks` after the bytes of `text`; empty if the grammar refuses them.
std::vector<std::uint32_t> state_after(grammar_stacks& stacks, std::string_view text) {
  std::vector<std::uint32_t> state;
  std::vector<std::uint32_t> next;
  if (!stacks.initial(state)) return {};
  for (const char c : text) {
    if (!stacks.advance(state, static_cast<std::uint8_t>(c), next)) return {};
    state.swap(next);
  }
  return state;
}

// Recursive grammars: stacks deeper than the frames token classes look at, tokens that pop
// below them (a quote or a bracket with more bytes after it), and states of several stacks.
// Each mask, built from classes, must equal trying every token on a fresh matcher.
TEST(TokenBitmask, ClassBasedMasksEqualBruteForceOnDeepStacks) {
  const std::vector<std::string> grammars = {
      R"(root ::= v
v ::= "[" ( v ( "," v )* )? "]" | "\"" [^"]* "\"" | "a"+)",
      R"(root ::= "[" root "]" | "a" root | "b")",
      R"(root ::= x+
x ::= "a" "b"* | "a" "\"" | "[" root "]" | "[" "b"* "," x "]")",
      R"(root ::= s ( "," s )*
s ::= "\"" c* "\""
c ::= [ab,] | "[" s "]")",
      // "ab]" after "[": z's stack pops below its three top frames after "a" and also
      // takes "b"; the "]" that z refuses next is the context's ("b"? "]") to take.
      R"(root ::= "[" root "]" | "[" x "b"? "]"
x ::= y ","?
y ::= z "a"?
z ::= "a" ( "b" "b" "b" )?)",
  };
  const auto vocab = bracket_vocabulary();
  std::mt19937 rng(5);
  for (const auto& gbnf : grammars) {
    const grammar_ptr grammar = compile(gbnf, vocab);
    ASSERT_NE(grammar, nullptr);
    // Nestings reached byte by byte first (a random walk takes longer tokens), then walks.
    for (const std::string_view prefix : {"[", "[[", "[[[", "\"", "[\"", "[[\""}) {
      grammar_matcher matcher(grammar);
      if (!matcher.accept_bytes(prefix)) continue;
      ASSERT_EQ(allowed(matcher), brute_force(grammar, prefix)) << gbnf << "\nafter " << prefix;
    }
    for (int walk = 0; walk < 6; ++walk) {
      grammar_matcher matcher(grammar);
      std::string history;
      for (int step = 0; step < 40; ++step) {
        const auto mask = allowed(matcher);
        ASSERT_EQ(mask, brute_force(grammar, history)) << gbnf << "\nafter '" << history << "'";
        // Prefer going deeper: an opening bracket or quote when one is allowed.
        std::vector<token_id> choices;
        for (const token_id t : mask) {
          if (t != 0 && vocab->bytes(t).find_first_of("[\"") != std::string::npos) {
            choices.push_back(t);
          }
        }
        if (choices.empty() || step % 3 == 2) choices = mask;
        const token_id next =
            choices[std::uniform_int_distribution<std::size_t>(0, choices.size() - 1)(rng)];
        if (next == 0) break;
        ASSERT_TRUE(matcher.accept_token(next));
        history += vocab->bytes(next);
      }
    }
  }
}

TEST(VocabularyTrie, EachNodeHoldsExactlyTheTokensWithItsPrefix) {
  const auto vocab = bracket_vocabulary();
  const auto& trie = vocab->trie();
  const auto& sorted = vocab->sorted_ids();
  std::vector<std::string> path(1);  // path[d]: the prefix of the open node of depth d
  for (std::size_t i = 1; i < trie.size(); ++i) {
    const trie_node& node = trie[i];
    path.resize(node.depth);
    path.push_back(path.back() + static_cast<char>(node.byte));
    const std::string& prefix = path.back();
    std::uint32_t first = 0;
    std::uint32_t count = 0;
    std::uint32_t exact = 0;
    for (std::uint32_t k = 0; k < sorted.size(); ++k) {
      const std::string& bytes = vocab->bytes(sorted[k]);
      if (!bytes.starts_with(prefix)) continue;
      if (count++ == 0) first = k;
      if (bytes == prefix) ++exact;
    }
    EXPECT_EQ(node.sorted_begin, first) << prefix;
    EXPECT_EQ(node.sorted_end, first + count) << prefix;
    EXPECT_EQ(node.ends, exact) << prefix;
    std::size_t below = 1;
    while (i + below < trie.size() && trie[i + below].depth > node.depth) ++below;
    EXPECT_EQ(node.subtree_size, below) << prefix;
  }
  EXPECT_EQ(trie[0].subtree_size, trie.size());
  EXPECT_EQ(trie[0].sorted_end, sorted.size());
}

TEST(TokenClasses, IdsAndMaskStorageAddTheSameBits) {
  // 100 tokens: 4 mask words, so up to 3 accepted are kept as ids, 4 or more as a mask.
  for (const std::vector<std::uint32_t>& accepted :
       {std::vector<std::uint32_t>{3, 97}, std::vector<std::uint32_t>{0, 31, 32, 64, 99}}) {
    const token_classes classes(accepted, {{5, 9}}, 100);
    std::vector<std::uint32_t> mask(4, 0);
    mask[1] = 1U << 7;  // a bit already set stays set
    classes.add_accepted(mask);
    std::vector<std::uint32_t> want = accepted;
    want.insert(std::upper_bound(want.begin(), want.end(), 39U), 39U);
    const std::vector<token_id> got = mask_ids(mask);
    EXPECT_TRUE(std::equal(got.begin(), got.end(), want.begin(), want.end()));
    EXPECT_EQ(classes.uncertain(), (std::vector<sorted_range>{{5, 9}}));
  }
}

TEST(TokenClasses, CacheFindsWhatItKeepsAndStopsAtItsBound) {
  std::vector<std::uint32_t> all(128);  // every token of 128: a 16-byte mask each
  for (std::uint32_t id = 0; id < all.size(); ++id) all[id] = id;
  const auto classes = std::make_shared<const token_classes>(all, std::vector<sorted_range>{}, 128);
  // Room for three: an entry costs its classes, its key (two frames and a flag) and 64.
  token_class_cache cache(3 * (classes->memory_bytes() + 9 + 64));
  std::string key;
  for (std::uint32_t pos = 0; pos < 5; ++pos) {
    const std::uint32_t frames[] = {pos, 7};
    token_classes_key(frames, pos % 2 == 0, key);
    cache.insert(key, classes);
  }
  const auto find = [&](std::uint32_t pos) {
    const std::uint32_t frames[] = {pos, 7};
    token_classes_key(frames, pos % 2 == 0, key);
    return cache.find(key) != nullptr;
  };
  EXPECT_TRUE(find(0) && find(1) && find(2));
  EXPECT_FALSE(find(3) || find(4));  // past the bound: computed again when needed
  const std::uint32_t frames[] = {0, 7};
  token_classes_key(frames, false, key);  // the same frames, not rooted: another key
  EXPECT_EQ(cache.find(key), nullptr);
}

TEST(WalkStates, InternsStatesAndRemembersTransitions) {
  const grammar_ptr grammar = compile(R"(root ::= "a"+)", bracket_vocabulary());
  grammar_stacks stacks(*grammar);
  std::vector<std::uint32_t> one;  // before any "a"
  std::vector<std::uint32_t> two;  // after one: more, or the end
  ASSERT_TRUE(stacks.initial(one));
  ASSERT_TRUE(stacks.advance(one, 'a', two));
  ASSERT_NE(one, two);
  walk_states states(2);
  const std::uint32_t a = states.intern(stacks, one);
  EXPECT_EQ(states.intern(stacks, one), a);
  const std::uint32_t b = states.intern(stacks, two);
  EXPECT_NE(a, b);
  const std::vector<std::uint32_t> done = {stack_pool::empty_stack};
  EXPECT_EQ(states.intern(stacks, done), walk_states::none);  // full
  EXPECT_EQ(states.stacks(b), two);
  EXPECT_TRUE(states.next(a).test('a') && !states.next(a).test('b'));
  EXPECT_EQ(states.transition(a, 'a'), walk_states::unknown);
  states.transition(a, 'a') = b;
  EXPECT_EQ(states.transition(a, 'a'), b);
  EXPECT_EQ(states.transition(b, 'a'), walk_states::unknown);
  states.reset();
  EXPECT_EQ(states.intern(stacks, two), 0u);
}

// With room for one state, every level past the first keeps its own copy: the slow path of
// every step. The masks must not change.
TEST(TokenMaskWalk, AFullStateTableGivesTheSameMasks) {
  const grammar_ptr grammar = compile(R"(root ::= v
v ::= "[" ( v ( "," v )* )? "]" | "\"" [^"]* "\"" | "a"+)",
                                      bracket_vocabulary());
  const std::vector<sorted_range> all = {
      {0, static_cast<std::uint32_t>(grammar->vocabulary().sorted_ids().size())}};
  for (const std::string_view history : {"", "[", "[[\"ab", "[\"a\",[a"}) {
    grammar_stacks stacks(*grammar);
    const std::vector<std::uint32_t> state = state_after(stacks, history);
    ASSERT_FALSE(state.empty());
    for (const std::size_t max_states : {std::size_t{1}, std::size_t{4096}}) {
      token_mask_walk walk(max_states);
      std::vector<std::uint32_t> mask(grammar->vocabulary().bitmask_words(), 0);
      ASSERT_TRUE(walk.add_allowed(stacks, state, grammar->vocabulary(), all, mask));
      std::vector<token_id> want = brute_force(grammar, history);
      std::erase(want, 0);  // the stop token is the caller's to add
      EXPECT_EQ(mask_ids(mask), want) << "after " << history << ", " << max_states << " states";
    }
  }
}

// Taking a subtree whole where the state loops on every byte below it (classify's shortcut)
// must give the classes that walking it gives, on every stack top met along random texts.
TEST(TokenMaskWalk, SubtreesTakenWholeGiveTheClassesOfAWalk) {
  const std::vector<std::string> grammars = {
      R"(root ::= "[" [^"]* "]" | "a"+ ","? "b"*)",
      R"(root ::= s ( "," s )*
s ::= "\"" [ab,\[\]]* "\"")",
  };
  const auto vocab = bracket_vocabulary();
  token_mask_walk whole(4096, 2);  // any subtree of two nodes or more
  token_mask_walk walked(4096, ~std::uint32_t{0});
  std::mt19937 rng(3);
  for (const auto& gbnf : grammars) {
    const grammar_ptr grammar = compile(gbnf, vocab);
    ASSERT_NE(grammar, nullptr);
    grammar_matcher matcher(grammar);
    std::string history;
    for (int step = 0; step < 12; ++step) {
      grammar_stacks stacks(*grammar);
      const std::vector<std::uint32_t> state = state_after(stacks, history);
      ASSERT_FALSE(state.empty());
      for (const std::uint32_t top : state) {
        if (top <= stack_pool::last_marker) continue;
        std::vector<std::uint32_t> frames;
        bool rooted = false;
        stacks.top_frames(top, context_frames, frames, rooted);
        grammar_stacks alone(*grammar);
        const std::uint32_t stack = alone.push_frames(frames, rooted);
        const auto a = whole.classify(alone, std::span(&stack, 1), *vocab);
        const auto b = walked.classify(alone, std::span(&stack, 1), *vocab);
        ASSERT_TRUE(a && b);
        std::vector<std::uint32_t> mask_a(vocab->bitmask_words(), 0);
        std::vector<std::uint32_t> mask_b(vocab->bitmask_words(), 0);
        a->add_accepted(mask_a);
        b->add_accepted(mask_b);
        EXPECT_EQ(mask_a, mask_b) << gbnf << "\nafter " << history;
        EXPECT_EQ(a->uncertain(), b->uncertain()) << gbnf << "\nafter " << history;
      }
      const auto mask = allowed(matcher);
      const token_id t = mask[std::uniform_int_distribution<std::size_t>(0, mask.size() - 1)(rng)];
      if (t == 0) break;
      ASSERT_TRUE(matcher.accept_token(t));
      history += vocab->bytes(t);
    }
  }
}

}  // namespace
}  // namespace pagedserve::grammar
