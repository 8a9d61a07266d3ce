#pragma once
// fused_moe's align step (vLLM's moe_align_block_size): the routed rows sorted by expert,
// each expert's run padded to a multiple of moe_block_m, into the scratch of moe_layout.h.
// One block does it all: counts per expert in shared memory, a serial prefix over the E
// padded counts, then a scatter through per-expert cursors.
//
// The scatter's atomics make the order of rows within an expert's run depend on the
// schedule. That is harmless: the grouped GEMMs compute each routed row on its own (its
// output element sums over k in a fixed order) and write it at its routed row r, not at its
// slot, so the results are the same bits whatever the order.

#include <cstdint>

#include "kernels/cuda/device_check.cuh"
#include "kernels/cuda/launch.cuh"
#include "kernels/cuda/moe_layout.h"

namespace pagedserve::kernels::cuda {

inline constexpr int moe_align_threads = 256;

// Dynamic shared memory: 3 E + 1 ints (counts, cursors, padded offsets).
__global__ void moe_align_kernel(const std::int32_t* ids, int rows, int experts, int max_slots,
                                 int max_blocks, std::int32_t* offsets, std::int32_t* sorted_rows,
                                 std::int32_t* block_expert) {
  DYNAMIC_SHARED(int, shared);
  int* counts = shared;
  int* cursor = shared + experts;
  int* start = shared + 2 * experts;  // [experts + 1]
  const int tid = static_cast<int>(threadIdx.x);
  const int threads = static_cast<int>(blockDim.x);
  for (int e = tid; e < experts; e += threads) counts[e] = 0;
  for (int s = tid; s < max_slots; s += threads) sorted_rows[s] = -1;
  __syncthreads();
  for (int r = tid; r < rows; r += threads) {
    const int e = ids[r];
    DEVICE_CHECK("fused_moe", e >= 0 && e < experts);
    atomicAdd(counts + e, 1);
  }
  __syncthreads();
  if (tid == 0) {
    int running = 0;
    for (int e = 0; e < experts; ++e) {
      start[e] = running;
      cursor[e] = running;
      const int block_m = static_cast<int>(moe_block_m);
      running += (counts[e] + block_m - 1) / block_m * block_m;
    }
    start[experts] = running;
  }
  __syncthreads();
  for (int e = tid; e <= experts; e += threads) offsets[e] = start[e];
  // Block b's expert: the e whose run holds slot b * moe_block_m (runs are whole blocks).
  for (int b = tid; b < max_blocks; b += threads) {
    const int slot = b * static_cast<int>(moe_block_m);
    int e = -1;
    if (slot < start[experts]) {
      int lo = 0;
      int hi = experts - 1;  // the last e with start[e] <= slot: a non-empty run holds it
      while (lo < hi) {
        const int mid = (lo + hi + 1) / 2;
        if (start[mid] <= slot) {
          lo = mid;
        } else {
          hi = mid - 1;
        }
      }
      e = lo;
    }
    block_expert[b] = e;
  }
  // The -1 fill above is ordered before these writes by the barriers (same block).
  for (int r = tid; r < rows; r += threads) {
    const int e = ids[r];
    sorted_rows[atomicAdd(cursor + e, 1)] = r;
  }
}

}  // namespace pagedserve::kernels::cuda
