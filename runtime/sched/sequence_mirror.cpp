#include "runtime/sched/sequence_mirror.h"

namespace pagedserve::sched {
namespace {

// What the entry must agree with, once its data is in.
std::optional<std::string> contradiction(const scheduled_sequence& entry, const sequence_mirror& s,
                                         std::uint32_t block_size) {
  const std::uint64_t end =
      std::uint64_t{entry.first_position} + std::uint64_t{entry.num_scheduled_tokens};
  const std::string where = "positions [" + std::to_string(entry.first_position) + ", " +
                            std::to_string(end) + ") with " + std::to_string(s.tokens.size()) +
                            " tokens known, " + std::to_string(s.num_computed) + " computed";
  if (entry.num_scheduled_tokens == 0) return "no tokens scheduled";
  if (entry.first_position != s.num_computed) return "gap or overlap: " + where;
  if (end > s.tokens.size()) return "tokens not known yet: " + where;
  if (entry.num_speculative_tokens > 0 &&
      std::uint64_t{s.block_table.size()} * block_size < end + entry.num_speculative_tokens) {
    return "lookahead slots outside the block table: " + where;
  }
  if (entry.samples && end != s.tokens.size()) {
    return "samples before the last known token: " + where;
  }
  if (std::uint64_t{s.block_table.size()} * block_size < end) {
    return "block table of " + std::to_string(s.block_table.size()) + " blocks too short: " + where;
  }
  return std::nullopt;
}

}  // namespace

void sequence_mirror::unload() {
  loaded = false;
  tokens.clear();
  block_table.clear();
  num_computed = 0;
}

std::optional<std::string> sequence_mirror::apply(const scheduled_sequence& entry,
                                                  std::uint32_t block_size) {
  if (entry.kind == schedule_kind::continuing) {
    if (!loaded) return "continuing entry for a sequence with no data";
    // The scheduler took back lookahead blocks after a speculative step.
    if (entry.first_block_index != scheduled_sequence::k_table_end) {
      if (entry.first_block_index > block_table.size()) {
        return "first block index " + std::to_string(entry.first_block_index) +
               " past a table of " + std::to_string(block_table.size()) + " blocks";
      }
      block_table.resize(entry.first_block_index);
    }
    block_table.insert(block_table.end(), entry.block_ids.begin(), entry.block_ids.end());
  } else {
    if (loaded) return "new or resumed entry for a sequence already loaded";
    loaded = true;
    tokens = entry.token_ids;
    block_table = entry.block_ids;
    num_computed = entry.first_position;  // earlier positions: the prefix cache's blocks
  }
  if (auto why = contradiction(entry, *this, block_size)) return why;
  num_computed = entry.first_position + entry.num_scheduled_tokens;
  return std::nullopt;
}

}  // namespace pagedserve::sched
