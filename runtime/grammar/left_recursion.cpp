// check_left_recursion (gbnf_parser.h): which rules can match empty, then the graph "rule A
// can start with rule B" (B is preceded in an alternative of A by nullable elements only),
// which must have no cycle. Both passes are linear in the grammar's size, so a hostile chain
// of 20,000 rules costs no more than it is long.

#include <deque>
#include <string>

#include "runtime/grammar/gbnf_parser.h"

namespace pagedserve::grammar {
namespace {

std::vector<bool> nullable_rules(const parsed_grammar& grammar) {
  const std::size_t n = grammar.rules.size();
  std::vector<bool> nullable(n, false);
  std::vector<std::uint32_t> owner;                 // per alternative
  std::vector<std::size_t> remaining;               // per alternative: elements not known nullable
  std::vector<std::vector<std::uint32_t>> uses(n);  // per rule: alternatives it occurs in
  std::deque<std::uint32_t> ready;
  for (std::uint32_t r = 0; r < n; ++r) {
    for (const auto& alternative : grammar.rules[r].alternatives) {
      bool has_bytes = false;
      for (const auto& e : alternative) has_bytes |= e.kind == element_kind::bytes;
      if (has_bytes) continue;
      const auto index = static_cast<std::uint32_t>(owner.size());
      owner.push_back(r);
      remaining.push_back(alternative.size());
      for (const auto& e : alternative) uses[e.value].push_back(index);
      if (alternative.empty() && !nullable[r]) {
        nullable[r] = true;
        ready.push_back(r);
      }
    }
  }
  while (!ready.empty()) {
    const std::uint32_t r = ready.front();
    ready.pop_front();
    for (const std::uint32_t a : uses[r]) {
      if (--remaining[a] == 0 && !nullable[owner[a]]) {
        nullable[owner[a]] = true;
        ready.push_back(owner[a]);
      }
    }
  }
  return nullable;
}

}  // namespace

status check_left_recursion(const parsed_grammar& grammar) {
  const std::size_t n = grammar.rules.size();
  const auto nullable = nullable_rules(grammar);
  std::vector<std::vector<std::uint32_t>> starts_with(n);
  std::vector<std::size_t> in_degree(n, 0);
  for (std::uint32_t r = 0; r < n; ++r) {
    for (const auto& alternative : grammar.rules[r].alternatives) {
      for (const auto& e : alternative) {
        if (e.kind != element_kind::rule) break;
        starts_with[r].push_back(e.value);
        ++in_degree[e.value];
        if (!nullable[e.value]) break;
      }
    }
  }
  // Kahn's algorithm: what is never freed lies on a cycle or after one.
  std::deque<std::uint32_t> ready;
  for (std::uint32_t r = 0; r < n; ++r) {
    if (in_degree[r] == 0) ready.push_back(r);
  }
  while (!ready.empty()) {
    const std::uint32_t r = ready.front();
    ready.pop_front();
    for (const std::uint32_t next : starts_with[r]) {
      if (--in_degree[next] == 0) ready.push_back(next);
    }
  }
  // Every blocked rule has a blocked predecessor; following them back must meet a repeat,
  // and a repeated rule lies on a cycle.
  std::vector<std::uint32_t> blocked_predecessor(n, 0);
  std::vector<bool> has_blocked_predecessor(n, false);
  for (std::uint32_t r = 0; r < n; ++r) {
    if (in_degree[r] == 0) continue;
    for (const std::uint32_t next : starts_with[r]) {
      blocked_predecessor[next] = r;
      has_blocked_predecessor[next] = true;
    }
  }
  for (std::uint32_t r = 0; r < n; ++r) {
    if (in_degree[r] == 0) continue;
    std::vector<bool> seen(n, false);
    std::uint32_t on_cycle = r;
    while (!seen[on_cycle] && has_blocked_predecessor[on_cycle]) {
      seen[on_cycle] = true;
      on_cycle = blocked_predecessor[on_cycle];
    }
    const auto& rule = grammar.rules[on_cycle];
    return make_error(error_code::invalid_argument,
                      "line " + std::to_string(rule.line) + ": rule '" + rule.name +
                          "' is left-recursive (it can reach itself without consuming input)");
  }
  return status::success();
}

}  // namespace pagedserve::grammar
