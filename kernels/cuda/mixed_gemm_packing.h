#pragma once
// The CUDA backend's layout of a quantized linear weight for its mixed-input GEMM
// (mixed_gemm_op.cu), made once at load from kernels/ops.h's host layout.
//
// The kernel gives each lane of a warp one row and 16 contiguous code bytes of a tile (8 rows
// x 64 bytes: 128 int4 or 64 int8 / e4m3 codes), so every lane issues one 16-byte load per
// tile and the rows stay row-major: the mma's k positions are permuted instead (the same
// permutation on x's side, which the sum does not see). So the layout is the host's, except:
//   int4   in each 32-bit word, the codes c0..c7 of 8 consecutive inputs sit at nibbles
//          c0 c2 c4 c6 c1 c3 c5 c7 (Marlin's interleave): (word >> 4 j) & 0x000F000F is the pair
//          (c2j, c2j+1) as two 16-bit fields, ready for the dequantizing arithmetic;
//   scales f32 [out, groups], one per row (fp8 block scales repeated on each row of the block).
// zeros stay u8 [out, groups]; input_order stays as it is. e4m3 and int8 codes keep the host
// layout ([out, in] row-major), which cuBLASLt's FP8 matmul reads as it is.
// Host code, in both builds of kernels/cuda. Internal to kernels/cuda.

#include <cstdint>
#include <vector>

#include "kernels/ops.h"

namespace pagedserve::kernels::cuda {

inline constexpr std::uint8_t mixed_gemm_packing = 1;  // quantized_weight::packing

// Whether the kernel takes the layer: int4, int8 or e4m3 codes; in_features a multiple of 32
// (whole 16-byte rows of int4 codes); groups a power of two of at least a lane's inputs (32
// int4 codes, 16 bytes), or one group over all of them.
[[nodiscard]] bool mixed_gemm_supports(const quantized_weight& host);

// log2 of the group size; 31 for one group over all inputs (any k >> 31 is 0).
[[nodiscard]] int mixed_gemm_group_shift(const quantized_weight& w);

// The code bytes and per-row scales above, from a host layer that mixed_gemm_supports.
struct packed_mixed_weight {
  std::vector<std::uint8_t> codes;
  std::vector<float> scales;
};
[[nodiscard]] packed_mixed_weight pack_mixed_gemm_weight(const quantized_weight& host);

}  // namespace pagedserve::kernels::cuda
