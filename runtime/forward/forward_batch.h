#pragma once
// forward_batch: one forward call's work, a flattened batch. Each sequence brings the
// tokens it computes now (a whole prompt, a prefill chunk or one decode token), how many of
// its tokens are already in the KV cache, and its block table. Prefill chunks and decodes
// mix freely. forward_output returns the logits of each sequence's last new token, and on
// request every new token's logits (tests compare positions with the reference).

#include <cstdint>
#include <span>
#include <vector>

#include "common/ids.h"
#include "common/types.h"
#include "kernels/tensor.h"

namespace pagedserve::forward {

struct sequence_step {
  std::span<const token_id> new_token_ids;  // at least one
  std::int64_t num_computed_tokens = 0;     // = position of new_token_ids[0]
  // Must cover positions [0, num_computed_tokens + new_token_ids.size()).
  std::span<const block_id> block_table;
};

// A new token the host does not know yet (it was sampled on the device by a step still in
// flight): its entry in new_token_ids is a placeholder, which the device overwrites with
// token_source[source_row] before the step runs.
struct device_token {
  std::int32_t token_row = 0;   // in the step's flattened new tokens
  std::int32_t source_row = 0;  // in forward_batch::token_source
};

struct forward_batch {
  std::vector<sequence_step> sequences;
  bool return_all_logits = false;
  // With return_all_logits: one pass over the output layer, for every row, and each
  // sequence's last logits copied out of it (run() only; the last rows' own pass is skipped,
  // so last_logits() is not set). For small batches that need every row anyway (speculative
  // verification); a prefill chunk's rows would cost more than the pass saved.
  bool only_all_logits = false;
  // Never replay a decode graph: model_forward::row_logits() reads this step's rows.
  bool eager = false;

  std::vector<device_token> device_tokens;
  kernels::tensor token_source;  // [m] i32 on the backend; needed when device_tokens is set
  // Words sent with the step's index arrays, in the same copy (the executor's sampling
  // rows); model_forward::last_trailer() is their copy on the backend. At most
  // k_trailer_words_per_sequence per sequence.
  std::span<const std::int32_t> trailer;
};

struct forward_output {
  std::int64_t vocab_size = 0;
  std::vector<float> last_logits;  // [num_sequences, vocab]
  std::vector<float> all_logits;   // [num_tokens, vocab] in batch order, when requested

  [[nodiscard]] std::span<const float> last(std::size_t sequence) const {
    return std::span<const float>(last_logits)
        .subspan(sequence * static_cast<std::size_t>(vocab_size),
                 static_cast<std::size_t>(vocab_size));
  }
  [[nodiscard]] std::span<const float> row(std::size_t token) const {
    return std::span<const float>(all_logits)
        .subspan(token * static_cast<std::size_t>(vocab_size),
                 static_cast<std::size_t>(vocab_size));
  }
};

}  // namespace pagedserve::forward
