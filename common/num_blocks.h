#pragma once
// num_blocks_for: the paged KV cache's one ceiling division. num_tokens tokens take this
// many blocks of block_size tokens, the last one possibly part full (block_size > 0).

#include <cstdint>

namespace pagedserve {

[[nodiscard]] constexpr std::int64_t num_blocks_for(std::int64_t num_tokens,
                                                    std::int64_t block_size) {
  return (num_tokens + block_size - 1) / block_size;
}

}  // namespace pagedserve
