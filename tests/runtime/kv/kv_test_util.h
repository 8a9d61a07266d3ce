#pragma once
// One-line helpers for the KV cache tests: token runs, block ids as plain numbers.

#include <cstdint>
#include <span>
#include <vector>

#include "common/ids.h"
#include "common/types.h"
#include "runtime/kv/kv_cache_manager.h"

namespace pagedserve::kv::testing {

// `n` tokens first, first + 1, ...
inline std::vector<token_id> token_run(token_id first, std::size_t n) {
  std::vector<token_id> out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = first + static_cast<token_id>(i);
  return out;
}

inline std::vector<token_id> concat(std::vector<token_id> a, const std::vector<token_id>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

inline std::vector<std::uint32_t> ids(std::span<const block_id> blocks) {
  std::vector<std::uint32_t> out;
  for (block_id b : blocks) out.push_back(b.value());
  return out;
}

inline std::vector<std::uint32_t> free_queue(const kv_cache_manager& m) {
  return ids(m.pool().free_queue_order());
}

inline std::vector<std::uint32_t> table(const kv_cache_manager& m, std::uint64_t seq) {
  return ids(m.block_table(seq_id{seq}));
}

inline bool is_cached(const kv_cache_manager& m, std::uint32_t block) {
  return m.pool().block(block_id{block}).cached.has_value();
}

}  // namespace pagedserve::kv::testing
