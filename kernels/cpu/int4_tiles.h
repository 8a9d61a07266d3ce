#pragma once
// The CPU's own int4 layout (quantized_weight::packing == int4_tiles_packing), made at load by
// cpu_backend::upload_quantized from the host layout of kernels/ops.h and read by
// int4_tiles_linear (simd/simd_int4_tiles.inc). The integers, zero points and scales are the
// checkpoint's, only moved: repacking is exact.
//
// W's outputs go in tiles of 16 (the last padded with zero codes and scales, never stored).
// A tile is one sequential stream, group by group: the group's units, then its 16 scales
// (f32) and 16 zero points (i32). A unit is 64 bytes, 8 consecutive codes k0..k0+7 of each of
// the 16 outputs: dword j is output j's, its byte t holds code k0+t in the low nibble and
// code k0+4+t in the high one. So `u & 0x0F0F0F0F` puts codes k0..k0+3 of output j in lane
// j's bytes, the operand of one vpdpbusd against x's bytes k0..k0+3 broadcast to every lane,
// and `(u >> 4) & 0x0F0F0F0F` codes k0+4..k0+7: the outputs are the lanes, one read of the
// stream serves every row of x, and there are no horizontal sums.

#include <cstdint>

#include "kernels/ops.h"

namespace pagedserve::kernels::cpu {

inline constexpr std::uint8_t int4_tiles_packing = 2;
inline constexpr std::int64_t int4_tile_outputs = 16;
inline constexpr std::int64_t int4_unit_codes = 8;  // per output
inline constexpr std::int64_t int4_unit_bytes = 64;
// A group's parameters after its units: 16 f32 scales, 16 i32 zero points.
inline constexpr std::int64_t int4_group_parameter_bytes = 128;

// Sizes of one weight in this layout.
struct int4_tiles_layout {
  std::int64_t num_tiles = 0;
  std::int64_t group_bytes = 0;  // a whole group's units and parameters
  std::int64_t tile_bytes = 0;   // every group of one tile
};

// Whether a host int4 weight (packing 0) has this layout: 8 | in_features, and groups of a
// multiple of 8 columns or one group per row.
[[nodiscard]] bool has_int4_tiles_layout(const quantized_weight& host);
[[nodiscard]] int4_tiles_layout int4_tiles_layout_of(const quantized_weight& w);
// The weight's tiles, layout_of(host).num_tiles * tile_bytes bytes at dst.
void pack_int4_tiles(const quantized_weight& host, std::uint8_t* dst);

}  // namespace pagedserve::kernels::cpu
