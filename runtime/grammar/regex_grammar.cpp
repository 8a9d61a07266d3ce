// regex_to_gbnf: a recursive-descent parser of the ECMAScript subset that writes GBNF as it
// goes. Regex and GBNF share their structure (groups, alternation, the same quantifiers), so
// each regex atom becomes one GBNF element; only classes and escapes need translating.
#include <string>
#include <tuple>
#include <vector>

#include "runtime/grammar/gbnf_text.h"
#include "runtime/grammar/regex_class.h"
#include "runtime/grammar/regex_translate.h"
#include "runtime/grammar/schema_grammar.h"

namespace pagedserve::grammar {
namespace {

constexpr int max_group_depth = 128;

// One element of a sequence. Literal pieces keep their bytes so that neighbours merge into
// one GBNF literal ("abc" rather than "a" "b" "c").
struct piece {
  std::string gbnf;
  std::string literal;
  bool is_literal = false;
};

piece literal_piece(std::string bytes) { return {gbnf_literal(bytes), bytes, true}; }

class regex_parser {
 public:
  regex_parser(std::string_view pattern, regex_text text) : pattern_(pattern), text_(text) {}

  result<std::string> parse() {
    auto expression = parse_alternation(true);
    if (!expression.ok()) return expression;
    if (pos_ < pattern_.size()) return invalid("unmatched ')'");
    return expression;
  }

 private:
  result<std::string> parse_alternation(bool at_start) {
    std::string out;
    while (true) {
      auto sequence = parse_sequence(at_start);
      if (!sequence.ok()) return sequence;
      out += *sequence;
      if (!consume('|')) return out;
      out += " | ";
    }
  }

  result<std::string> parse_sequence(bool at_start) {
    std::vector<piece> pieces;
    while (pos_ < pattern_.size() && peek() != '|' && peek() != ')') {
      if (auto anchor = skip_anchor(at_start && pieces.empty()); !anchor.ok()) {
        return anchor.err();
      } else if (*anchor) {
        continue;
      }
      if (is_quantifier_start()) return invalid("nothing to repeat");
      auto atom = parse_atom(at_start && pieces.empty());
      if (!atom.ok()) return atom.err();
      auto quantified = parse_quantifier(std::move(*atom));
      if (!quantified.ok()) return quantified.err();
      append(pieces, std::move(*quantified));
    }
    return join(pieces);
  }

  // ^ and $ only where they are no-ops for a full match. True when one was skipped.
  result<bool> skip_anchor(bool at_start) {
    if (peek() == '^') {
      if (!at_start) return unsupported("the anchor '^' other than at the start");
      ++pos_;
      return true;
    }
    if (peek() != '$') return false;
    ++pos_;
    if (pos_ < pattern_.size() && peek() != '|' && peek() != ')') {
      return unsupported("the anchor '$' other than at the end");
    }
    return true;
  }

  result<piece> parse_atom(bool at_start) {
    char c = peek();
    if (c == '(') return parse_group(at_start);
    if (c == '[') {
      auto set = parse_class(pattern_, pos_);
      if (!set.ok()) return set.err();
      return set_piece(*set);
    }
    if (c == '.') {
      ++pos_;
      code_point_set newline = code_point_set::of('\n', '\n');
      return set_piece(newline.complement());
    }
    if (c == '\\') {
      auto escape = parse_escape(pattern_, pos_, escape_context::outside_class);
      if (!escape.ok()) return escape.err();
      if (escape->is_set) return set_piece(escape->set);
      return code_point_piece(escape->cp);
    }
    std::size_t start = pos_;
    auto cp = utf8_decode(pattern_, pos_);
    if (!cp) return invalid_at(start, "invalid UTF-8");
    return code_point_piece(*cp);
  }

  result<piece> parse_group(bool at_start) {
    std::size_t open = pos_++;
    if (consume('?')) {
      if (consume(':')) {
      } else if (peek() == '=' || peek() == '!') {
        return unsupported("lookahead '(?" + std::string(1, peek()) + "'");
      } else if (consume('<')) {
        if (peek() == '=' || peek() == '!') return unsupported("lookbehind");
        auto close = pattern_.find('>', pos_);
        if (close == std::string_view::npos) return invalid("unterminated group name");
        pos_ = close + 1;  // a named group matches as a plain group
      } else {
        return invalid("invalid group '(?'");
      }
    }
    if (++depth_ > max_group_depth) return invalid("groups nested deeper than 128");
    auto inner = parse_alternation(at_start);
    if (!inner.ok()) return inner.err();
    --depth_;
    if (!consume(')')) return invalid_at(open, "missing ')' for the group");
    return piece{"( " + *inner + " )", "", false};
  }

  result<piece> parse_quantifier(piece atom) {
    std::size_t start = pos_;
    std::string suffix;
    std::size_t min = 0;
    std::optional<std::size_t> max;
    if (consume('*')) {
      suffix = "*";
      max.reset();
    } else if (consume('+')) {
      suffix = "+";
      min = 1;
    } else if (consume('?')) {
      suffix = "?";
      max = 1;
    } else if (auto braces = parse_braces()) {
      std::tie(min, max) = *braces;
      if (max && *max < min) return invalid_at(start, "numbers out of order in {} quantifier");
      suffix.append("{").append(std::to_string(min));
      if (max != std::optional<std::size_t>(min)) suffix.append(",");
      if (max && *max != min) suffix.append(std::to_string(*max));
      suffix.append("}");
    } else {
      return atom;
    }
    consume('?');  // lazy: the same language when the match is always full
    if (is_quantifier_start()) return invalid("nothing to repeat");
    if (max == std::optional<std::size_t>(0)) return literal_piece("");
    return piece{atom.gbnf + suffix, "", false};
  }

  // {m}, {m,}, {m,n}; nullopt (nothing consumed) when the brace is not a quantifier, as
  // ECMAScript then reads it as a literal '{'.
  std::optional<std::pair<std::size_t, std::optional<std::size_t>>> parse_braces() {
    std::size_t saved = pos_;
    if (!consume('{')) return std::nullopt;
    auto min = parse_number();
    if (!min) {
      pos_ = saved;
      return std::nullopt;
    }
    std::optional<std::size_t> max = min;
    if (consume(',')) max = parse_number();
    if (!consume('}')) {
      pos_ = saved;
      return std::nullopt;
    }
    return std::pair{*min, max};
  }

  std::optional<std::size_t> parse_number() {
    std::size_t start = pos_;
    std::size_t value = 0;
    while (pos_ < pattern_.size() && peek() >= '0' && peek() <= '9' && pos_ - start < 9) {
      value = value * 10 + static_cast<std::size_t>(peek() - '0');
      ++pos_;
    }
    if (pos_ == start) return std::nullopt;
    return value;
  }

  bool is_quantifier_start() {
    if (pos_ >= pattern_.size()) return false;
    char c = peek();
    if (c == '*' || c == '+' || c == '?') return true;
    if (c != '{') return false;
    std::size_t saved = pos_;
    bool braces = parse_braces().has_value();
    pos_ = saved;
    return braces;
  }

  piece code_point_piece(char32_t cp) {
    if (text_ == regex_text::raw) return literal_piece(utf8_encode(cp));
    return literal_piece(json_escaped(cp));
  }

  result<piece> set_piece(const code_point_set& set) {
    if (set.empty()) return invalid("a class that matches nothing");
    auto ranges = set.ranges();
    if (ranges.size() == 1 && ranges[0].first == ranges[0].second) {
      return code_point_piece(ranges[0].first);
    }
    if (text_ == regex_text::raw) return piece{set.to_gbnf(), "", false};
    return piece{json_string_set_gbnf(set), "", false};
  }

  static void append(std::vector<piece>& pieces, piece next) {
    if (next.is_literal && !pieces.empty() && pieces.back().is_literal) {
      pieces.back() = literal_piece(pieces.back().literal + next.literal);
    } else {
      pieces.push_back(std::move(next));
    }
  }

  static std::string join(const std::vector<piece>& pieces) {
    if (pieces.empty()) return "\"\"";
    std::string out;
    for (const auto& p : pieces) out += (out.empty() ? "" : " ") + p.gbnf;
    return out;
  }

  char peek() const { return pattern_[pos_]; }
  bool consume(char c) {
    if (pos_ >= pattern_.size() || pattern_[pos_] != c) return false;
    ++pos_;
    return true;
  }
  error invalid(const std::string& what) const { return invalid_at(pos_, what); }
  error invalid_at(std::size_t offset, const std::string& what) const {
    return make_error(error_code::invalid_argument,
                      "invalid regex: " + what + " at offset " + std::to_string(offset));
  }
  error unsupported(const std::string& what) const {
    return make_error(
        error_code::unsupported,
        "regex construct " + what + " is not supported (offset " + std::to_string(pos_) + ")");
  }

  std::string_view pattern_;
  regex_text text_;
  std::size_t pos_ = 0;
  int depth_ = 0;
};

}  // namespace

result<std::string> regex_to_gbnf_expression(std::string_view pattern, regex_text text) {
  return regex_parser(pattern, text).parse();
}

result<std::string> regex_to_gbnf(std::string_view pattern) {
  auto expression = regex_to_gbnf_expression(pattern, regex_text::raw);
  if (!expression.ok()) return expression;
  return "root ::= " + *expression + "\n";
}

}  // namespace pagedserve::grammar
