#pragma once
// fused_moe's scratch on the CUDA backend (kernels/moe_ops.h), shared by the host launcher and
// the backend's fused_moe_scratch_bytes. Host code only, no CUDA types.
//
// A routed row is r = t * top_k + j (token t's j-th expert). The align step sorts the routed
// rows by expert and pads each expert's run to a multiple of moe_block_m (vLLM's
// moe_align_block_size), so every block of moe_block_m sorted slots belongs to one expert:
//
//   offsets       i32 [E + 1]      padded start of each expert's run; offsets[E] = total
//   sorted_rows   i32 [max_slots]  routed row of each slot, -1 for padding and past the total
//   block_expert  i32 [max_blocks] expert of each block of slots, -1 past the total
//   h             f32 [rows, I]    silu(gate) * up of each routed row (indexed by r)
//   y             f32 [rows, H]    down projection of each routed row (indexed by r)
//
// Every size grows with num_tokens, so scratch sized for the largest batch serves any smaller
// one (the layout is recomputed from each call's n, its total never exceeding the bound).

#include <algorithm>
#include <cstdint>

#include "kernels/moe_ops.h"

namespace pagedserve::kernels::cuda {

// Sorted slots per block of the grouped GEMMs (one expert per block).
inline constexpr std::int64_t moe_block_m = 16;

struct moe_scratch_layout {
  std::int64_t rows = 0;        // num_tokens * top_k
  std::int64_t max_slots = 0;   // bound on the padded total
  std::int64_t max_blocks = 0;  // max_slots / moe_block_m
  std::int64_t offsets = 0, sorted_rows = 0, block_expert = 0, h = 0, y = 0;  // byte offsets
  std::int64_t total = 0;                                                     // bytes
};

[[nodiscard]] inline moe_scratch_layout moe_layout_of(const fused_moe_shape& s) {
  const auto aligned = [](std::int64_t bytes) { return (bytes + 255) / 256 * 256; };
  moe_scratch_layout l;
  l.rows = s.num_tokens * s.top_k;
  // Each expert that any row chose pads its run by at most moe_block_m - 1 slots, and at most
  // min(E, rows) experts are chosen.
  l.max_slots = l.rows + std::min(s.num_experts, l.rows) * (moe_block_m - 1);
  l.max_slots = (l.max_slots + moe_block_m - 1) / moe_block_m * moe_block_m;
  l.max_blocks = l.max_slots / moe_block_m;
  l.sorted_rows = l.offsets + aligned((s.num_experts + 1) * 4);
  l.block_expert = l.sorted_rows + aligned(l.max_slots * 4);
  l.h = l.block_expert + aligned(l.max_blocks * 4);
  l.y = l.h + aligned(l.rows * s.intermediate * 4);
  l.total = l.y + aligned(l.rows * s.hidden * 4);
  return l;
}

}  // namespace pagedserve::kernels::cuda
