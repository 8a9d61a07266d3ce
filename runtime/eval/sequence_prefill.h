#pragma once
// sequence_prefill: runs one sequence's tokens through model_forward as a prefill, in chunks,
// with every position's logits returned (teacher forcing). It owns a KV cache big enough for
// one sequence of max_tokens, mapped by a fixed block table (blocks 0, 1, 2, ... in order).
//
// Invariant: the chunks of one sequence come in order, the first at start 0, each starting
// where the previous ended; a new sequence starts again at 0 and overwrites the slots it
// reads before reading them, so nothing of the previous sequence leaks into it.

#include <cstdint>
#include <span>
#include <vector>

#include "common/ids.h"
#include "runtime/forward/model_forward.h"

namespace pagedserve::eval {

class sequence_prefill {
 public:
  sequence_prefill(forward::model_forward& model, std::int64_t max_tokens, std::int64_t block_size,
                   forward::kv_cache_dtype cache_dtype = forward::kv_cache_dtype::auto_);

  // The forward of tokens[start, start + count), tokens[0, start) being in the cache already.
  // all_logits holds `count` rows, one per new token. Requires start + count <= max_tokens.
  [[nodiscard]] forward::forward_output run_chunk(std::span<const token_id> tokens,
                                                  std::int64_t start, std::int64_t count);

  [[nodiscard]] forward::model_forward& model() const { return model_; }

 private:
  forward::model_forward& model_;
  std::int64_t max_tokens_;
  forward::paged_kv_cache cache_;
  std::vector<block_id> block_table_;
};

}  // namespace pagedserve::eval
