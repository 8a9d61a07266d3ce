#pragma once
// Bytes the allocator has handed out and not had back: glibc's in-use bytes over every arena
// (mallinfo2: small blocks and mmapped ones), or ASan's count where ASan owns malloc. Tests
// of bounded memory compare it before and after a workload; RSS would also count pages the
// allocator keeps for reuse.

#include <cstddef>

#if defined(__SANITIZE_ADDRESS__)
// libasan's (GCC ships no header for it; clang's sanitizer/allocator_interface.h declares it).
extern "C" std::size_t __sanitizer_get_current_allocated_bytes();
#else
#include <malloc.h>
#endif

namespace pagedserve::testing {

inline std::size_t allocated_bytes() {
#if defined(__SANITIZE_ADDRESS__)
  return __sanitizer_get_current_allocated_bytes();
#else
  const struct mallinfo2 info = mallinfo2();
  return info.uordblks + info.hblkhd;
#endif
}

}  // namespace pagedserve::testing
