#include "runtime/eval/sequence_prefill.h"

#include <cstdio>
#include <cstdlib>

#include "common/num_blocks.h"

namespace pagedserve::eval {

sequence_prefill::sequence_prefill(forward::model_forward& model, std::int64_t max_tokens,
                                   std::int64_t block_size, forward::kv_cache_dtype cache_dtype)
    : model_(model),
      max_tokens_(max_tokens),
      cache_(model.backend(),
             forward::kv_cache_layout::for_model(
                 model.config(), num_blocks_for(max_tokens, block_size), block_size, cache_dtype)) {
  for (std::int64_t b = 0; b < num_blocks_for(max_tokens, block_size); ++b) {
    block_table_.emplace_back(static_cast<std::uint32_t>(b));
  }
}

forward::forward_output sequence_prefill::run_chunk(std::span<const token_id> tokens,
                                                    std::int64_t start, std::int64_t count) {
  if (start < 0 || count < 1 || start + count > max_tokens_ ||
      start + count > static_cast<std::int64_t>(tokens.size())) {
    std::fprintf(stderr, "sequence_prefill: chunk [%lld, %lld) outside the sequence or the cache\n",
                 static_cast<long long>(start), static_cast<long long>(start + count));
    std::abort();
  }
  forward::forward_batch batch;
  batch.return_all_logits = true;
  batch.sequences.push_back(
      {tokens.subspan(static_cast<std::size_t>(start), static_cast<std::size_t>(count)), start,
       block_table_});
  return model_.run(batch, cache_);
}

}  // namespace pagedserve::eval
