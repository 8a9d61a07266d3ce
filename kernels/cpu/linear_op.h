#pragma once
// What linear_op.cpp (dense W) and quantized_linear_op.cpp (W read from its codes) share.

#include <cstdint>

#include "kernels/ops.h"

namespace pagedserve::kernels::cpu {
namespace simd {
struct kernel_set;
}

// Rows of W per panel, the unit of work of one thread: a multiple of every kernel's column
// tile (6 for the fp32 tiles; 1, 2 and 4 for the quantized ones); 48 rows of a 4096-wide
// fp32 layer are 768 KiB, within a core's L2.
inline constexpr std::int64_t panel_rows = 48;

// out[r, :] += bias for each of the num_rows rows of out.
void add_bias(const linear_params& p, std::int64_t num_rows, std::int64_t out_features);

// How a quantized linear may compute (cpu_backend_options).
struct quantized_linear_options {
  // Few rows of x with int4 W: x quantized to int8 per group where `kernels` multiply int4
  // by int8 (simd::kernel_set::int4_times_int8_x); elsewhere, or off, fp32 x (exact).
  bool int8_activations = false;
};

// linear() for p.quantized.is_quantized(): W is never materialised in full. Runs the kernel
// set picked for this processor, or `kernels` (tests compare every set).
void quantized_linear(const linear_params& p);
void quantized_linear(const linear_params& p, const simd::kernel_set& kernels,
                      const quantized_linear_options& options = {});

// linear() for W in the CPU's int4 tiles (int4_tiles.h; kernels with int4_tiles only): x in
// one int8 limb with int8_activations up to 64 rows (decode batches), else in four (exact).
void int4_tiles_linear(const linear_params& p, const simd::kernel_set& kernels,
                       const quantized_linear_options& options);

// A quantized W's input_order, where set: a permutation's range and size (each call).
void check_input_order(const quantized_weight& w);

}  // namespace pagedserve::kernels::cpu
