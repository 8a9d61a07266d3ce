#pragma once
// A made-up vocabulary over a golden model's token ids for the grammar tests of the
// executors: token t stands for one or two characters of a small alphabet, and the last id
// is the stop token (no bytes). The model's logits then pick among strings that a grammar
// constrains; whether the output matches is checked with std::regex.

#include <memory>
#include <string>
#include <vector>

#include "runtime/grammar/token_vocabulary.h"

namespace pagedserve::engine_testing {

inline constexpr std::string_view grammar_alphabet = "abc{}0123456789,:";

inline std::vector<std::string> grammar_token_bytes(std::size_t vocab_size) {
  std::vector<std::string> bytes(vocab_size);
  for (std::size_t t = 0; t + 1 < vocab_size; ++t) {
    bytes[t] = grammar_alphabet[t % grammar_alphabet.size()];
    if (t % 7 == 3) bytes[t] += grammar_alphabet[(t / 7) % grammar_alphabet.size()];
  }
  return bytes;
}

inline std::shared_ptr<const grammar::token_vocabulary> grammar_vocabulary(std::size_t vocab_size) {
  return grammar::token_vocabulary::create(grammar_token_bytes(vocab_size),
                                           {static_cast<token_id>(vocab_size - 1)});
}

// The text of tokens up to the first stop token, and whether one came.
struct grammar_output {
  std::string text;
  bool stopped = false;
};

inline grammar_output grammar_text(const std::vector<token_id>& tokens, std::size_t vocab_size) {
  const std::vector<std::string> bytes = grammar_token_bytes(vocab_size);
  grammar_output out;
  for (const token_id t : tokens) {
    if (static_cast<std::size_t>(t) == vocab_size - 1) {
      out.stopped = true;
      break;
    }
    out.text += bytes[static_cast<std::size_t>(t)];
  }
  return out;
}

// Objects of one to four "key:number" items: GBNF for the engine, ECMAScript for std::regex.
inline constexpr std::string_view object_gbnf =
    "root ::= \"{\" item (\",\" item){0,3} \"}\"\n"
    "item ::= [a-c]{1,4} \":\" [0-9]{1,3}\n";
inline constexpr const char* object_regex =
    R"(\{[a-c]{1,4}:[0-9]{1,3}(,[a-c]{1,4}:[0-9]{1,3}){0,3}\})";

}  // namespace pagedserve::engine_testing
