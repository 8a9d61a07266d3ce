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

// linear() for p.quantized.is_quantized(): W is never materialised in full. Runs the kernel
// set picked for this processor, or `kernels` (tests compare every set).
void quantized_linear(const linear_params& p);
void quantized_linear(const linear_params& p, const simd::kernel_set& kernels);

}  // namespace pagedserve::kernels::cpu
