#include "runtime/forward/batch_metadata.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace pagedserve::forward {
namespace {

[[noreturn]] void bad_batch(std::size_t sequence, const char* what) {
  std::fprintf(stderr, "build_batch_metadata: sequence %zu: %s\n", sequence, what);
  std::abort();
}

}  // namespace

batch_metadata build_batch_metadata(const forward_batch& batch, std::int64_t block_size) {
  batch_metadata m;
  m.num_sequences = static_cast<std::int64_t>(batch.sequences.size());
  for (const sequence_step& s : batch.sequences) {
    m.max_blocks_per_sequence =
        std::max(m.max_blocks_per_sequence, static_cast<std::int64_t>(s.block_table.size()));
  }
  m.block_tables.assign(static_cast<std::size_t>(m.num_sequences * m.max_blocks_per_sequence), 0);
  m.query_start.push_back(0);
  for (std::size_t i = 0; i < batch.sequences.size(); ++i) {
    const sequence_step& s = batch.sequences[i];
    const auto num_new = static_cast<std::int64_t>(s.new_token_ids.size());
    const std::int64_t context_len = s.num_computed_tokens + num_new;
    if (num_new == 0) bad_batch(i, "no new tokens");
    if (static_cast<std::int64_t>(s.block_table.size()) * block_size < context_len) {
      bad_batch(i, "block table does not cover the context");
    }
    for (std::int64_t j = 0; j < num_new; ++j) {
      const std::int64_t pos = s.num_computed_tokens + j;
      const auto block = s.block_table[static_cast<std::size_t>(pos / block_size)].value();
      m.token_ids.push_back(s.new_token_ids[static_cast<std::size_t>(j)]);
      m.positions.push_back(static_cast<std::int32_t>(pos));
      m.slot_mapping.push_back(static_cast<std::int32_t>(block * block_size + pos % block_size));
    }
    for (std::size_t b = 0; b < s.block_table.size(); ++b) {
      m.block_tables[i * static_cast<std::size_t>(m.max_blocks_per_sequence) + b] =
          static_cast<std::int32_t>(s.block_table[b].value());
    }
    m.query_start.push_back(static_cast<std::int32_t>(m.query_start.back() + num_new));
    m.context_lens.push_back(static_cast<std::int32_t>(context_len));
    m.last_rows.push_back(m.query_start.back() - 1);
    m.max_context_len = std::max(m.max_context_len, static_cast<std::int32_t>(context_len));
  }
  m.num_tokens = m.query_start.back();
  return m;
}

}  // namespace pagedserve::forward
