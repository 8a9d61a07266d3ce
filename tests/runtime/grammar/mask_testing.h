#pragma once
// Helpers of the token-mask tests: compile a grammar, read a matcher's mask as ids, and the
// reference for a mask: every token tried on a fresh matcher (accept_token, which walks no
// trie and reads no token classes).

#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "runtime/grammar/compiled_grammar.h"
#include "runtime/grammar/grammar_matcher.h"

namespace pagedserve::grammar::testing {

using grammar_ptr = std::shared_ptr<const compiled_grammar>;

// Concatenation by append (GCC 12 warns falsely on chains of operator+).
inline std::string concat(std::initializer_list<std::string_view> parts) {
  std::string out;
  for (const auto part : parts) out.append(part);
  return out;
}

inline grammar_ptr compile(std::string_view gbnf, std::shared_ptr<const token_vocabulary> vocab) {
  auto grammar = compile_gbnf(gbnf, std::move(vocab));
  EXPECT_TRUE(grammar.ok()) << grammar.err().message;
  return grammar ? *grammar : nullptr;
}

// Every string of 1..max_length letters, shorter ones first.
inline std::vector<std::string> all_strings(const std::vector<std::string>& letters,
                                            int max_length) {
  std::vector<std::string> out;
  std::vector<std::string> last = {""};
  for (int length = 1; length <= max_length; ++length) {
    std::vector<std::string> next;
    for (const auto& prefix : last) {
      for (const auto& l : letters) next.push_back(concat({prefix, l}));
    }
    out.insert(out.end(), next.begin(), next.end());
    last = std::move(next);
  }
  return out;
}

// The ids whose bits are set, ascending.
inline std::vector<token_id> mask_ids(const std::vector<std::uint32_t>& mask) {
  std::vector<token_id> ids;
  for (std::size_t id = 0; id < mask.size() * 32; ++id) {
    if ((mask[id / 32] >> (id % 32)) & 1) ids.push_back(static_cast<token_id>(id));
  }
  return ids;
}

inline std::vector<token_id> allowed(grammar_matcher& matcher) {
  std::vector<std::uint32_t> mask(matcher.vocabulary().bitmask_words());
  matcher.fill_next_token_bitmask(mask);
  return mask_ids(mask);
}

// What the mask must be: every token tried on a fresh matcher that has taken `history`.
inline std::vector<token_id> brute_force(const grammar_ptr& grammar, std::string_view history,
                                         bool stopped = false) {
  std::vector<token_id> ids;
  if (stopped) return ids;
  for (std::size_t id = 0; id < grammar->vocabulary().size(); ++id) {
    grammar_matcher matcher(grammar);
    EXPECT_TRUE(matcher.accept_bytes(history));
    if (matcher.accept_token(static_cast<token_id>(id))) ids.push_back(static_cast<token_id>(id));
  }
  return ids;
}

}  // namespace pagedserve::grammar::testing
