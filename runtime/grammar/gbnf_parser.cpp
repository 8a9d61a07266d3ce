#include "runtime/grammar/gbnf_parser.h"

#include <map>
#include <optional>
#include <unordered_map>
#include <utility>

#include "runtime/grammar/gbnf_scanner.h"
#include "runtime/grammar/utf8_sequences.h"

namespace pagedserve::grammar {
namespace {

bool is_name_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-';
}

// Recursive descent over the grammar text; groups recurse, bounded by max_group_nesting.
// Every parse_ function returns false once the scanner has recorded an error.
class gbnf_parser {
 public:
  gbnf_parser(std::string_view text, const compile_limits& limits)
      : scanner_(text), limits_(limits) {}

  result<parsed_grammar> parse(std::size_t num_bytes);

 private:
  bool parse_rule();
  bool parse_alternatives(std::vector<grammar_sequence>& out, std::size_t depth);
  bool parse_sequence(grammar_sequence& out, std::size_t depth);
  bool parse_term(grammar_sequence& term, std::size_t depth);
  bool parse_group(grammar_sequence& term, std::size_t depth);
  bool parse_quantifier(grammar_sequence& term);
  bool repeat(grammar_sequence& term, std::size_t min, std::optional<std::size_t> max);
  bool class_term(const std::vector<code_point_range>& ranges, grammar_sequence& term);
  std::optional<std::uint32_t> star_rule(const grammar_sequence& term);
  std::optional<std::uint32_t> add_helper(std::vector<grammar_sequence> alternatives);
  std::optional<std::uint32_t> rule_id(std::string_view name);
  bool wrap_if_long(grammar_sequence& term);
  grammar_element bytes_element(const byte_set& set);
  bool count_elements(std::size_t n);
  status finish();

  gbnf_scanner scanner_;
  const compile_limits& limits_;
  parsed_grammar grammar_;
  std::unordered_map<std::string, std::uint32_t> rule_ids_;
  std::vector<bool> defined_;                // per rule
  std::vector<std::size_t> first_use_line_;  // per rule
  std::map<byte_set, std::uint32_t> set_ids_;
  std::map<std::vector<std::pair<char32_t, char32_t>>, std::uint32_t> class_rules_;
  // Helpers (body | "") of bounded repetitions by their body: equal x{m,n} anywhere share
  // their nested optionals, so their positions (and their token classes) are computed once.
  std::map<std::vector<std::pair<element_kind, std::uint32_t>>, std::uint32_t> optional_rules_;
  std::size_t num_named_rules_ = 0;
  std::size_t num_elements_ = 0;  // every element created, an upper bound of the final count
  std::uint32_t current_rule_ = 0;
};

result<parsed_grammar> gbnf_parser::parse(std::size_t num_bytes) {
  if (num_bytes > limits_.max_grammar_bytes) {
    return make_error(error_code::invalid_argument, "grammar is " + std::to_string(num_bytes) +
                                                        " bytes, more than max_grammar_bytes (" +
                                                        std::to_string(limits_.max_grammar_bytes) +
                                                        ")");
  }
  while (true) {
    scanner_.skip_space(true);
    if (scanner_.at_end()) break;
    if (!parse_rule()) return *scanner_.failure();
  }
  if (auto s = finish(); !s) return s.err();
  return std::move(grammar_);
}

bool gbnf_parser::parse_rule() {
  const std::size_t line = scanner_.line();
  const std::string_view name = scanner_.scan_name();
  if (name.empty()) {
    return scanner_.fail(std::string("expected a rule name, found '") + scanner_.peek() + "'");
  }
  scanner_.skip_space(false);
  if (!scanner_.consume("::=")) {
    return scanner_.fail("expected '::=' after rule name '" + std::string(name) + "'");
  }
  const auto id = rule_id(name);
  if (!id) return false;
  if (defined_[*id]) {
    return scanner_.fail("rule '" + std::string(name) + "' is defined twice (first on line " +
                         std::to_string(grammar_.rules[*id].line) + ")");
  }
  defined_[*id] = true;
  grammar_.rules[*id].line = line;
  current_rule_ = *id;
  scanner_.skip_space(true);
  std::vector<grammar_sequence> alternatives;
  if (!parse_alternatives(alternatives, 0)) return false;
  scanner_.skip_space(false);
  if (!scanner_.at_end() && scanner_.peek() != '\n') {
    return scanner_.fail(std::string("unexpected '") + scanner_.peek() + "'");
  }
  if (!count_elements(alternatives.size())) return false;
  grammar_.rules[*id].alternatives = std::move(alternatives);
  return true;
}

bool gbnf_parser::parse_alternatives(std::vector<grammar_sequence>& out, std::size_t depth) {
  while (true) {
    grammar_sequence sequence;
    if (!parse_sequence(sequence, depth)) return false;
    out.push_back(std::move(sequence));
    scanner_.skip_space(depth > 0);
    if (!scanner_.consume("|")) return true;
    scanner_.skip_space(true);
  }
}

bool gbnf_parser::parse_sequence(grammar_sequence& out, std::size_t depth) {
  while (true) {
    scanner_.skip_space(depth > 0);
    const char c = scanner_.peek();
    if (scanner_.at_end() || c == '|' || c == ')' || c == '\n') return true;
    grammar_sequence term;
    if (!parse_term(term, depth)) return false;
    scanner_.skip_space(depth > 0);
    while (!scanner_.at_end() &&
           std::string_view("*+?{").find(scanner_.peek()) != std::string_view::npos) {
      if (!parse_quantifier(term)) return false;
      scanner_.skip_space(depth > 0);
    }
    out.insert(out.end(), term.begin(), term.end());
  }
}

bool gbnf_parser::parse_term(grammar_sequence& term, std::size_t depth) {
  const char c = scanner_.peek();
  if (c == '"') {
    std::vector<std::uint8_t> bytes;
    if (!scanner_.scan_literal(bytes) || !count_elements(bytes.size())) return false;
    for (const std::uint8_t b : bytes) {
      byte_set set;
      set.set(b);
      term.push_back(bytes_element(set));
    }
    return true;
  }
  if (c == '[') {
    std::vector<code_point_range> ranges;
    bool negated = false;
    if (!scanner_.scan_class(ranges, negated)) return false;
    ranges = normalize_ranges(std::move(ranges));
    if (negated) ranges = complement_ranges(ranges);
    return class_term(ranges, term);
  }
  if (c == '.') {
    scanner_.advance();
    return class_term({{0, max_code_point}}, term);
  }
  if (c == '(') return parse_group(term, depth);
  if (is_name_start(c)) {
    const auto id = rule_id(scanner_.scan_name());
    if (!id || !count_elements(1)) return false;
    term.push_back({element_kind::rule, *id});
    return true;
  }
  return scanner_.fail(std::string("unexpected '") + c + "'");
}

bool gbnf_parser::parse_group(grammar_sequence& term, std::size_t depth) {
  if (depth + 1 > max_group_nesting) {
    return scanner_.fail("groups nested deeper than " + std::to_string(max_group_nesting));
  }
  scanner_.advance();  // '('
  scanner_.skip_space(true);
  std::vector<grammar_sequence> alternatives;
  if (!parse_alternatives(alternatives, depth + 1)) return false;
  scanner_.skip_space(true);
  if (!scanner_.consume(")")) return scanner_.fail("expected ')'");
  if (alternatives.size() == 1) {
    term = std::move(alternatives[0]);
    return true;
  }
  const auto id = add_helper(std::move(alternatives));
  if (!id) return false;
  term = {{element_kind::rule, *id}};
  return true;
}

bool gbnf_parser::parse_quantifier(grammar_sequence& term) {
  const char c = scanner_.peek();
  if (c == '{') {
    std::size_t min = 0;
    std::optional<std::size_t> max;
    if (!scanner_.scan_repetition(min, max)) return false;
    const std::size_t largest = max ? *max : min;
    if (largest > limits_.max_repetition) {
      return scanner_.fail("repetition count " + std::to_string(largest) +
                           " is more than max_repetition (" +
                           std::to_string(limits_.max_repetition) + ")");
    }
    return repeat(term, min, max);
  }
  scanner_.advance();
  if (c == '?') return repeat(term, 0, 1);
  if (c == '*') return repeat(term, 0, std::nullopt);
  return repeat(term, 1, std::nullopt);  // '+'
}

// x{m,n} becomes m copies of x, then n - m nested optionals: x{2,4} is x x (x (x)?)?, which
// unlike x x x? x? has one parse per string (no duplicate stacks while matching).
bool gbnf_parser::repeat(grammar_sequence& term, std::size_t min, std::optional<std::size_t> max) {
  if ((max ? *max : min + 1) >= 2 && !wrap_if_long(term)) return false;
  grammar_sequence out;
  if (!count_elements(term.size() * min)) return false;
  for (std::size_t i = 0; i < min; ++i) out.insert(out.end(), term.begin(), term.end());
  if (!max) {
    const auto star = star_rule(term);
    if (!star || !count_elements(1)) return false;
    out.push_back({element_kind::rule, *star});
  } else if (*max > min) {
    grammar_sequence tail;
    for (std::size_t i = min; i < *max; ++i) {
      grammar_sequence body = term;
      body.insert(body.end(), tail.begin(), tail.end());
      std::vector<std::pair<element_kind, std::uint32_t>> key;
      for (const grammar_element& e : body) key.emplace_back(e.kind, e.value);
      auto it = optional_rules_.find(key);
      if (it == optional_rules_.end()) {
        if (!count_elements(body.size() + 1)) return false;
        const auto id = add_helper({std::move(body), {}});
        if (!id) return false;
        it = optional_rules_.emplace(std::move(key), *id).first;
      }
      tail = {{element_kind::rule, it->second}};
    }
    out.insert(out.end(), tail.begin(), tail.end());
  }
  term = std::move(out);
  return true;
}

bool gbnf_parser::wrap_if_long(grammar_sequence& term) {
  if (term.size() <= 1) return true;
  const auto id = add_helper({std::move(term)});
  if (!id || !count_elements(1)) return false;
  term = {{element_kind::rule, *id}};
  return true;
}

// h ::= x h | "" (right recursive: the matcher's stack does not grow per repetition).
std::optional<std::uint32_t> gbnf_parser::star_rule(const grammar_sequence& term) {
  const auto id = add_helper({});
  if (!id || !count_elements(term.size() + 1)) return std::nullopt;
  grammar_sequence body = term;
  body.push_back({element_kind::rule, *id});
  grammar_.rules[*id].alternatives = {std::move(body), {}};
  return id;
}

// A class is inlined when it is one byte sequence (all of ASCII [a-z0-9_] is one byte set);
// otherwise it becomes a rule with one alternative per sequence, shared by equal classes.
bool gbnf_parser::class_term(const std::vector<code_point_range>& ranges, grammar_sequence& term) {
  const auto sequences = utf8_sequences(ranges);
  if (sequences.size() == 1) {
    if (!count_elements(sequences[0].bytes.size())) return false;
    for (const auto& set : sequences[0].bytes) term.push_back(bytes_element(set));
    return true;
  }
  std::vector<std::pair<char32_t, char32_t>> key;
  for (const auto& r : ranges) key.emplace_back(r.lo, r.hi);
  auto it = class_rules_.find(key);
  if (it == class_rules_.end()) {
    std::vector<grammar_sequence> alternatives;
    for (const auto& sequence : sequences) {
      if (!count_elements(sequence.bytes.size())) return false;
      grammar_sequence alternative;
      for (const auto& set : sequence.bytes) alternative.push_back(bytes_element(set));
      alternatives.push_back(std::move(alternative));
    }
    const auto id = add_helper(std::move(alternatives));
    if (!id) return false;
    it = class_rules_.emplace(std::move(key), *id).first;
  }
  if (!count_elements(1)) return false;
  term.push_back({element_kind::rule, it->second});
  return true;
}

std::optional<std::uint32_t> gbnf_parser::add_helper(std::vector<grammar_sequence> alternatives) {
  if (!count_elements(alternatives.size())) return std::nullopt;
  const auto id = static_cast<std::uint32_t>(grammar_.rules.size());
  // Copies: push_back may reallocate the rules the owner lives in.
  std::string owner_name = grammar_.rules[current_rule_].name;
  const auto owner_line = grammar_.rules[current_rule_].line;
  grammar_.rules.push_back({std::move(owner_name), owner_line, true, std::move(alternatives)});
  defined_.push_back(true);
  first_use_line_.push_back(owner_line);
  return id;
}

std::optional<std::uint32_t> gbnf_parser::rule_id(std::string_view name) {
  if (auto it = rule_ids_.find(std::string(name)); it != rule_ids_.end()) return it->second;
  if (++num_named_rules_ > limits_.max_rules) {
    scanner_.fail("more than max_rules (" + std::to_string(limits_.max_rules) + ") rules");
    return std::nullopt;
  }
  const auto id = static_cast<std::uint32_t>(grammar_.rules.size());
  grammar_.rules.push_back({std::string(name), scanner_.line(), false, {}});
  defined_.push_back(false);
  first_use_line_.push_back(scanner_.line());
  rule_ids_.emplace(std::string(name), id);
  return id;
}

grammar_element gbnf_parser::bytes_element(const byte_set& set) {
  auto [it, inserted] =
      set_ids_.emplace(set, static_cast<std::uint32_t>(grammar_.byte_sets.size()));
  if (inserted) grammar_.byte_sets.push_back(set);
  return {element_kind::bytes, it->second};
}

bool gbnf_parser::count_elements(std::size_t n) {
  num_elements_ += n;
  if (num_elements_ <= limits_.max_elements) return true;
  return scanner_.fail("more than max_elements (" + std::to_string(limits_.max_elements) +
                       ") grammar elements after expanding repetitions");
}

status gbnf_parser::finish() {
  for (std::size_t id = 0; id < grammar_.rules.size(); ++id) {
    if (!defined_[id]) {
      return make_error(error_code::invalid_argument,
                        "line " + std::to_string(first_use_line_[id]) + ": undefined rule '" +
                            grammar_.rules[id].name + "'");
    }
  }
  const auto root = rule_ids_.find("root");
  if (root == rule_ids_.end()) {
    return make_error(error_code::invalid_argument, "line 1: the grammar has no rule 'root'");
  }
  grammar_.root = root->second;
  grammar_.num_elements = 0;
  for (const auto& rule : grammar_.rules) {
    for (const auto& alternative : rule.alternatives) {
      grammar_.num_elements += alternative.size() + 1;
    }
  }
  return check_left_recursion(grammar_);
}

}  // namespace

result<parsed_grammar> parse_gbnf(std::string_view gbnf, const compile_limits& limits) {
  // The size is checked before anything is scanned.
  const std::size_t num_bytes = gbnf.size();
  if (num_bytes > limits.max_grammar_bytes) gbnf = {};
  gbnf_parser parser(gbnf, limits);
  return parser.parse(num_bytes);
}

}  // namespace pagedserve::grammar
