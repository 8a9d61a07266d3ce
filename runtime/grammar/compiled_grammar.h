#pragma once
// compiled_grammar: a grammar in GBNF (llama.cpp's dialect, which xgrammar's EBNF also reads)
// compiled once against a vocabulary, to be matched by any number of grammar_matchers at
// once (immutable and thread-safe after compile).
//
// The GBNF accepted (docs/structured-outputs.md has the full description):
//   rule      ::= name "::=" alternatives      (one per line; a line may continue inside ( ))
//   name      [a-zA-Z0-9_-]+ ; the start rule is `root`
//   "..."     a literal (UTF-8), escapes \" \\ \n \r \t \xHH \uHHHH \UHHHHHHHH
//   [...]     a class of code points, ranges a-z, negated [^...], the same escapes and \] \- \^
//   .         any code point
//   ( )  |    grouping and alternation; quantifiers * + ? {m} {m,} {m,n} on any element
//   # ...     a comment to the end of the line
// Matching is over bytes: literals, classes and `.` are matched in their UTF-8 encoding, so a
// token may end in the middle of a multi-byte character.

#include <cstddef>
#include <memory>
#include <string_view>

#include "common/result.h"
#include "runtime/grammar/token_vocabulary.h"

namespace pagedserve::grammar {

// Bounds that keep a hostile grammar from taking unbounded time or memory. Compiling past
// one is an invalid_argument error naming the bound.
struct compile_limits {
  std::size_t max_grammar_bytes = 1 << 20;  // GBNF text
  std::size_t max_rules = 20'000;
  std::size_t max_elements = 1'000'000;  // after expanding {m,n} repetitions
  std::size_t max_repetition = 10'000;   // the largest m or n of {m,n}
};

class compiled_grammar;  // opaque: see compiled_grammar_impl.h (internal to runtime/grammar)

// Parses and compiles `gbnf`. Errors: invalid_argument naming the line and what is wrong
// (undefined rule, syntax, left recursion, a bound of `limits`).
[[nodiscard]] result<std::shared_ptr<const compiled_grammar>> compile_gbnf(
    std::string_view gbnf, std::shared_ptr<const token_vocabulary> vocabulary,
    const compile_limits& limits = {});

}  // namespace pagedserve::grammar
