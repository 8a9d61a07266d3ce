#include "runtime/grammar/compiled_grammar.h"

#include <utility>

#include "runtime/grammar/compiled_grammar_impl.h"
#include "runtime/grammar/gbnf_parser.h"

namespace pagedserve::grammar {

compiled_grammar::compiled_grammar(const parsed_grammar& parsed,
                                   std::shared_ptr<const token_vocabulary> vocabulary)
    : vocabulary_(std::move(vocabulary)), byte_sets_(parsed.byte_sets), root_(parsed.root) {
  elements_.reserve(parsed.num_elements);
  rule_begin_.reserve(parsed.rules.size() + 1);
  for (const auto& rule : parsed.rules) {
    rule_begin_.push_back(static_cast<std::uint32_t>(alternative_starts_.size()));
    for (const auto& alternative : rule.alternatives) {
      alternative_starts_.push_back(static_cast<std::uint32_t>(elements_.size()));
      elements_.insert(elements_.end(), alternative.begin(), alternative.end());
      elements_.push_back({element_kind::end, 0});
    }
  }
  rule_begin_.push_back(static_cast<std::uint32_t>(alternative_starts_.size()));
}

result<std::shared_ptr<const compiled_grammar>> compile_gbnf(
    std::string_view gbnf, std::shared_ptr<const token_vocabulary> vocabulary,
    const compile_limits& limits) {
  if (!vocabulary) return make_error(error_code::invalid_argument, "no vocabulary");
  auto parsed = parse_gbnf(gbnf, limits);
  if (!parsed) return parsed.err();
  return std::shared_ptr<const compiled_grammar>(
      std::make_shared<compiled_grammar>(*parsed, std::move(vocabulary)));
}

}  // namespace pagedserve::grammar
