#pragma once
// sched_check: aborts with context when a scheduler invariant is broken (a bug here or in
// the caller's use of the protocol); expected shortfalls are values instead (STYLE.md).

#include <cstdio>
#include <cstdlib>
#include <source_location>
#include <string_view>

namespace pagedserve::sched {

[[noreturn]] inline void sched_invariant_failure(std::string_view what,
                                                 std::source_location where) {
  std::fprintf(stderr, "pagedserve::sched invariant broken at %s:%u: %.*s\n", where.file_name(),
               static_cast<unsigned>(where.line()), static_cast<int>(what.size()), what.data());
  std::abort();
}

inline void sched_check(bool condition, std::string_view what,
                        std::source_location where = std::source_location::current()) {
  if (!condition) [[unlikely]] {
    sched_invariant_failure(what, where);
  }
}

}  // namespace pagedserve::sched
