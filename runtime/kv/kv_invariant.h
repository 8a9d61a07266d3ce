#pragma once
// kv_check: aborts with context when a bookkeeping invariant of the KV cache is broken.
// Broken invariants are bugs (in this component or in its caller's use of the contract), so
// they stop the process instead of returning an error value (STYLE.md: errors in tiers).

#include <source_location>
#include <string_view>

namespace pagedserve::kv {

[[noreturn]] void kv_invariant_failure(std::string_view what, std::source_location where);

// For messages built at run time: build them only on the failure path.
[[noreturn]] inline void kv_fail(std::string_view what,
                                 std::source_location where = std::source_location::current()) {
  kv_invariant_failure(what, where);
}

inline void kv_check(bool condition, std::string_view what,
                     std::source_location where = std::source_location::current()) {
  if (!condition) [[unlikely]] {
    kv_invariant_failure(what, where);
  }
}

}  // namespace pagedserve::kv
