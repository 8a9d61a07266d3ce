#pragma once
// compiled_grammar's inside (internal to runtime/grammar): the parsed grammar flattened into
// one array of elements, where every alternative ends with an `end` element, so a position
// (an index into it) is all a stack frame needs.
//
//   rule r's alternatives start at alternative_starts_[rule_begin_[r] .. rule_begin_[r + 1])
//   elements_: ... [bytes 'a'][rule 7][end] [bytes 'b'][end] ...
//
// Immutable after construction except for the two caches, which lock.

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "runtime/grammar/byte_set.h"
#include "runtime/grammar/compiled_grammar.h"
#include "runtime/grammar/gbnf_parser.h"
#include "runtime/grammar/mask_cache.h"
#include "runtime/grammar/token_classes.h"
#include "runtime/grammar/token_vocabulary.h"

namespace pagedserve::grammar {

// Memory for cached masks per compiled grammar (about 4,000 masks at a 128k vocabulary), and
// for token classes (at least as many stack tops; most hold a few ids, not a mask).
inline constexpr std::size_t mask_cache_bytes = std::size_t{64} << 20;
inline constexpr std::size_t token_class_cache_bytes = std::size_t{64} << 20;

class compiled_grammar {
 public:
  compiled_grammar(const parsed_grammar& parsed,
                   std::shared_ptr<const token_vocabulary> vocabulary);

  [[nodiscard]] const token_vocabulary& vocabulary() const { return *vocabulary_; }
  [[nodiscard]] std::uint32_t root() const { return root_; }
  [[nodiscard]] const grammar_element& element(std::uint32_t pos) const { return elements_[pos]; }
  // The byte set of a position holding a bytes element.
  [[nodiscard]] const byte_set& bytes_at(std::uint32_t pos) const {
    return byte_sets_[elements_[pos].value];
  }
  [[nodiscard]] std::span<const std::uint32_t> alternatives(std::uint32_t rule) const {
    return std::span(alternative_starts_)
        .subspan(rule_begin_[rule], rule_begin_[rule + 1] - rule_begin_[rule]);
  }
  [[nodiscard]] mask_cache& masks() const { return masks_; }
  [[nodiscard]] token_class_cache& class_cache() const { return class_cache_; }

 private:
  std::shared_ptr<const token_vocabulary> vocabulary_;
  std::vector<grammar_element> elements_;
  std::vector<byte_set> byte_sets_;
  std::vector<std::uint32_t> rule_begin_;  // size num_rules + 1
  std::vector<std::uint32_t> alternative_starts_;
  std::uint32_t root_ = 0;
  mutable mask_cache masks_{mask_cache_bytes};
  mutable token_class_cache class_cache_{token_class_cache_bytes};
};

}  // namespace pagedserve::grammar
