#include "runtime/kv/kv_invariant.h"

#include <cstdio>
#include <cstdlib>

namespace pagedserve::kv {

void kv_invariant_failure(std::string_view what, std::source_location where) {
  std::fprintf(stderr, "%s:%u: KV cache invariant broken in %s: %.*s\n", where.file_name(),
               static_cast<unsigned>(where.line()), where.function_name(),
               static_cast<int>(what.size()), what.data());
  std::abort();
}

}  // namespace pagedserve::kv
