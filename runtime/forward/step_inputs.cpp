#include "runtime/forward/step_inputs.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace pagedserve::forward {
namespace {

[[noreturn]] void bad_step(const char* what) {
  std::fprintf(stderr, "step_inputs: %s\n", what);
  std::abort();
}

void put(std::span<std::int32_t> dst, std::int64_t offset, const std::vector<std::int32_t>& src) {
  std::copy(src.begin(), src.end(), dst.begin() + offset);
}

}  // namespace

step_offsets offsets_of(const step_shape& shape) {
  step_offsets o;
  const std::int64_t n = shape.num_tokens;
  const std::int64_t s = shape.num_sequences;
  o.token_ids = 0;
  o.positions = o.token_ids + n;
  o.slot_mapping = o.positions + n;
  o.query_start = o.slot_mapping + n;
  o.context_lens = o.query_start + s + 1;
  o.last_rows = o.context_lens + s;
  o.block_tables = o.last_rows + s;
  o.total = o.block_tables + s * shape.table_width;
  return o;
}

step_shape shape_of(const batch_metadata& meta, std::int64_t table_width) {
  if (table_width < meta.max_blocks_per_sequence) bad_step("table width below the longest table");
  return {meta.num_tokens, meta.num_sequences, table_width};
}

void pack_step_inputs(const batch_metadata& meta, const step_shape& shape,
                      std::span<std::int32_t> dst) {
  if (shape.num_tokens != meta.num_tokens || shape.num_sequences != meta.num_sequences ||
      shape.table_width < meta.max_blocks_per_sequence) {
    bad_step("shape does not match the batch");
  }
  const step_offsets o = offsets_of(shape);
  if (static_cast<std::int64_t>(dst.size()) < o.total) bad_step("destination too small");
  put(dst, o.token_ids, meta.token_ids);
  put(dst, o.positions, meta.positions);
  put(dst, o.slot_mapping, meta.slot_mapping);
  put(dst, o.query_start, meta.query_start);
  put(dst, o.context_lens, meta.context_lens);
  put(dst, o.last_rows, meta.last_rows);
  const std::int64_t from_width = meta.max_blocks_per_sequence;
  for (std::int64_t s = 0; s < meta.num_sequences; ++s) {
    const auto row = meta.block_tables.begin() + s * from_width;
    const auto out = dst.begin() + o.block_tables + s * shape.table_width;
    std::copy(row, row + from_width, out);
    std::fill(out + from_width, out + shape.table_width, 0);
  }
}

batch_metadata pad_decode_batch(const batch_metadata& meta, std::int64_t num_sequences,
                                std::int32_t padding_block, std::int64_t block_size) {
  if (meta.num_tokens != meta.num_sequences) bad_step("padding a batch that is not all decodes");
  if (num_sequences < meta.num_sequences) bad_step("padding to fewer sequences");
  batch_metadata m = meta;
  if (m.query_start.empty()) m.query_start.push_back(0);  // an empty batch, padding only
  m.max_blocks_per_sequence = std::max<std::int64_t>(meta.max_blocks_per_sequence, 1);
  m.block_tables.clear();
  for (std::int64_t s = 0; s < num_sequences; ++s) {
    for (std::int64_t b = 0; b < m.max_blocks_per_sequence; ++b) {
      const bool real = s < meta.num_sequences && b < meta.max_blocks_per_sequence;
      m.block_tables.push_back(
          real ? meta.block_tables[static_cast<std::size_t>(s * meta.max_blocks_per_sequence + b)]
               : padding_block);
    }
  }
  const auto slot = static_cast<std::int32_t>(padding_block * block_size);
  for (std::int64_t s = meta.num_sequences; s < num_sequences; ++s) {
    m.token_ids.push_back(0);
    m.positions.push_back(0);
    m.slot_mapping.push_back(slot);
    m.query_start.push_back(static_cast<std::int32_t>(s + 1));
    m.context_lens.push_back(1);
    m.last_rows.push_back(static_cast<std::int32_t>(s));
  }
  m.num_tokens = num_sequences;
  m.num_sequences = num_sequences;
  m.max_context_len = std::max<std::int32_t>(meta.max_context_len, 1);
  return m;
}

}  // namespace pagedserve::forward
