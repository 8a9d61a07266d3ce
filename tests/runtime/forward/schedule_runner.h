#pragma once
// schedule_runner: drives several sequences through model_forward the way a scheduler
// would, so tests can vary batch composition, prefill chunk size and block size. Each step
// builds one flattened batch: every started sequence contributes its next prefill chunk or,
// once its prompt is in, one decode token (greedy). Blocks come from a sequential local
// allocator. It records every prompt position's logits and each greedy pick with the
// logits it was picked from.

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "runtime/forward/decode_graphs.h"
#include "runtime/forward/model_forward.h"
#include "runtime/sampling/sampler.h"

namespace pagedserve::forward::testing {

struct scheduled_sequence {
  std::vector<token_id> prompt;
  std::int64_t chunk_size = 1 << 20;  // prefill tokens per step
  std::int64_t start_step = 0;        // first step it joins the batch
  std::size_t num_generate = 24;
};

struct sequence_record {
  std::vector<float> prompt_logits;  // [prompt.size(), vocab]
  std::vector<token_id> generated;
  std::vector<float> generated_logits;  // [generated.size(), vocab]
};

// With `graphs`, decode graphs are captured for the schedule's cache first, and steps of
// decodes only replay them (prompt logits are requested only while a prompt is in the batch).
inline std::vector<sequence_record> run_schedule(model_forward& fwd,
                                                 std::vector<scheduled_sequence> seqs,
                                                 std::int64_t block_size,
                                                 std::int64_t num_blocks = 256,
                                                 const decode_graph_options* graphs = nullptr) {
  const std::int64_t vocab = fwd.config().vocab_size;
  paged_kv_cache cache(fwd.backend(),
                       kv_cache_layout::for_model(fwd.config(), num_blocks, block_size));
  if (graphs != nullptr) {
    // Graph capture freezes the workspace: reserve room for the largest eager step first.
    std::int64_t max_tokens = 0;
    for (const scheduled_sequence& s : seqs) {
      max_tokens += std::min(static_cast<std::int64_t>(s.prompt.size()), s.chunk_size) + 1;
    }
    fwd.workspace().reserve(max_tokens, static_cast<std::int64_t>(seqs.size()), num_blocks);
    fwd.enable_decode_graphs(cache, *graphs);
  }
  struct state {
    std::vector<token_id> tokens;  // prompt, then generated
    std::int64_t num_computed = 0;
    std::vector<block_id> table;
  };
  std::vector<state> states(seqs.size());
  std::vector<sequence_record> records(seqs.size());
  std::uint32_t next_block = 0;
  for (std::size_t i = 0; i < seqs.size(); ++i) states[i].tokens = seqs[i].prompt;

  auto finished = [&](std::size_t i) {
    return records[i].generated.size() >= seqs[i].num_generate;
  };
  auto all_finished = [&] {
    for (std::size_t i = 0; i < seqs.size(); ++i) {
      if (!finished(i)) return false;
    }
    return true;
  };
  for (std::int64_t step_index = 0; !all_finished(); ++step_index) {
    forward_batch batch;
    std::vector<std::size_t> members;
    for (std::size_t i = 0; i < seqs.size(); ++i) {
      if (step_index < seqs[i].start_step || finished(i)) continue;
      state& s = states[i];
      const auto prompt_left = static_cast<std::int64_t>(seqs[i].prompt.size()) - s.num_computed;
      const std::int64_t num_new = prompt_left > 0 ? std::min(prompt_left, seqs[i].chunk_size) : 1;
      if (prompt_left > 0) batch.return_all_logits = true;
      while (static_cast<std::int64_t>(s.table.size()) * block_size < s.num_computed + num_new) {
        s.table.emplace_back(next_block++);
      }
      batch.sequences.push_back(
          {std::span<const token_id>(s.tokens).subspan(static_cast<std::size_t>(s.num_computed),
                                                       static_cast<std::size_t>(num_new)),
           s.num_computed, s.table});
      members.push_back(i);
    }
    if (members.empty()) continue;  // the others have not started yet
    const forward_output out = fwd.run(batch, cache);
    std::size_t row = 0;
    for (std::size_t b = 0; b < members.size(); ++b) {
      const std::size_t i = members[b];
      state& s = states[i];
      const std::size_t num_new = batch.sequences[b].new_token_ids.size();
      for (std::size_t j = 0; j < num_new; ++j, ++row) {
        const auto pos = static_cast<std::size_t>(s.num_computed) + j;
        if (pos < seqs[i].prompt.size() && batch.return_all_logits) {
          records[i].prompt_logits.resize(seqs[i].prompt.size() * static_cast<std::size_t>(vocab));
          std::copy_n(out.row(row).begin(), vocab,
                      records[i].prompt_logits.begin() +
                          static_cast<std::ptrdiff_t>(pos * static_cast<std::size_t>(vocab)));
        }
      }
      s.num_computed += static_cast<std::int64_t>(num_new);
      if (s.num_computed < static_cast<std::int64_t>(seqs[i].prompt.size())) continue;
      const std::span<const float> last = out.last(b);
      const token_id next = greedy_sample(last);
      records[i].generated.push_back(next);
      records[i].generated_logits.insert(records[i].generated_logits.end(), last.begin(),
                                         last.end());
      s.tokens.push_back(next);
    }
  }
  return records;
}

}  // namespace pagedserve::forward::testing
