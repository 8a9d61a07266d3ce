#pragma once
// The schema-grammar tests' vocabulary: the 256 bytes as tokens and a stop token (256), so a
// grammar is matched byte by byte; and whether a text is a whole sentence of a grammar.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/grammar/compiled_grammar.h"
#include "runtime/grammar/grammar_matcher.h"

namespace pagedserve::grammar::testing {

inline std::shared_ptr<const token_vocabulary> byte_vocabulary() {
  static const auto vocabulary = [] {
    std::vector<std::string> bytes;
    for (int b = 0; b < 256; ++b) bytes.emplace_back(1, static_cast<char>(b));
    bytes.emplace_back();  // 256: the stop token
    return token_vocabulary::create(std::move(bytes), {256});
  }();
  return vocabulary;
}

inline bool matches(const std::shared_ptr<const compiled_grammar>& grammar, std::string_view text) {
  grammar_matcher matcher(grammar);
  return matcher.accept_bytes(text) && matcher.is_accepting();
}

}  // namespace pagedserve::grammar::testing
