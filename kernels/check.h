#pragma once
// Invariant checks for op arguments: a failed check is a bug in the caller, so it prints
// the op, the condition and where, then aborts (STYLE.md: broken invariants abort).

#include <cstdio>
#include <cstdlib>

namespace pagedserve::kernels {

[[noreturn]] inline void check_failed(const char* what, const char* condition, const char* file,
                                      int line) {
  std::fprintf(stderr, "%s:%d: op check failed in %s: %s\n", file, line, what, condition);
  std::abort();
}

}  // namespace pagedserve::kernels

// KERNEL_CHECK_WITH(on_failure, what, condition): the one check of the kernels, host and
// device (device_check.cuh): on_failure(what, condition's text, file, line) must not return.
#define KERNEL_CHECK_WITH(on_failure, what, condition)                  \
  do {                                                                  \
    if (!(condition)) on_failure(what, #condition, __FILE__, __LINE__); \
  } while (false)

// KERNEL_CHECK(op_name, condition): aborts with context when `condition` is false.
#define KERNEL_CHECK(what, condition) \
  KERNEL_CHECK_WITH(::pagedserve::kernels::check_failed, what, condition)
