#pragma once
// static_batch_baseline: what a server without continuous batching does with a workload,
// run on the real model forward so its wall time can be set beside the engine's.
//
//   Requests are taken in workload order, B at a time. A batch of b <= B requests runs as
//     prefill:  one forward call over b sequences of P tokens each, P = the batch's longest
//               prompt; shorter prompts are LEFT-padded with token 0 (pad tokens first, the
//               prompt last, so every sequence's first output lands at position P);
//     decode:   T - 1 more forward calls of one token per sequence, T = the batch's largest
//               max_tokens; no sequence leaves early.
//   Sampling is greedy. Useful output = each request's own max_tokens tokens; the rest of
//   the batch's tokens are computed and discarded.
//
//   B = min(max_num_seqs, floor(kv_slots / (P_all + T_all))), P_all and T_all the longest
//   prompt and largest max_tokens of the WHOLE workload: each sequence reserves room for the
//   longest possible request, in the same KV memory the paged engine gets (kv_slots). The
//   cache rounds each reservation up to whole blocks of block_size.
//
// The forward has no attention mask: a padded sequence attends to its pad tokens, so its
// output tokens differ from an unpadded run. Only the cost is modelled; the longest prompt
// of a batch (no padding) decodes exactly as alone.

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "common/result.h"
#include "common/types.h"
#include "runtime/model/model_config.h"
#include "sim/workload.h"

namespace pagedserve {
class checkpoint;
}

namespace pagedserve::sim {

struct static_baseline_config {
  model_config model;
  std::shared_ptr<const checkpoint> weights;  // host weights, uploaded to the CPU backend
  std::uint32_t max_num_seqs = 256;
  std::uint64_t kv_slots = 0;  // KV tokens of the memory to fit in (num_blocks * block_size)
  std::uint32_t block_size = 16;
};

struct static_baseline_report {
  // The batches only: weight upload and cache allocation come first (the engine, too, does
  // both at start).
  double wall_s = 0.0;
  std::uint32_t batch_size = 0;  // B
  std::uint64_t num_batches = 0;
  std::uint64_t steps = 0;                 // forward calls: per batch 1 prefill + (T - 1) decodes
  std::uint64_t useful_output_tokens = 0;  // sum of max_tokens
  // Tokens fed through the forward, padding included: per batch b * (P + T - 1).
  std::uint64_t computed_tokens = 0;
  double output_tokens_per_s = 0.0;  // useful_output_tokens / wall_s
  // Per request (workload order): its first max_tokens greedy tokens.
  std::vector<std::vector<token_id>> output_token_ids;
};

// B from the rule above; 0 when one reservation does not fit in kv_slots.
[[nodiscard]] std::uint32_t static_batch_size(std::uint32_t max_num_seqs, std::uint64_t kv_slots,
                                              std::span<const workload_request> workload);

// Errors: empty workload, an empty prompt, max_tokens 0, a token id outside the vocabulary,
// a request longer than kv_slots, weights that do not match the model.
[[nodiscard]] result<static_baseline_report> run_static_baseline(
    const static_baseline_config& config, std::span<const workload_request> workload);

}  // namespace pagedserve::sim
