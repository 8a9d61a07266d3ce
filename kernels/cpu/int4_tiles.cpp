#include "kernels/cpu/int4_tiles.h"

#include <algorithm>
#include <cstring>

#include "kernels/check.h"

namespace pagedserve::kernels::cpu {
namespace {

std::int64_t group_columns(const quantized_weight& w) {
  return w.num_groups() == 1 ? w.in_features : w.group_size;
}

// The host layout's code of output n, column k (ops.h: byte k / 2, low nibble for even k).
std::uint8_t host_code(const quantized_weight& w, std::int64_t n, std::int64_t k) {
  const std::uint8_t byte = w.codes.as<const std::uint8_t>()[n * ((w.in_features + 1) / 2) + k / 2];
  return k % 2 == 0 ? byte & 0x0F : byte >> 4;
}

// One unit: columns k0..k0+7 of outputs [n0, n0 + 16), those past out_features zero.
void pack_unit(const quantized_weight& w, std::int64_t n0, std::int64_t k0, std::uint8_t* dst) {
  for (std::int64_t j = 0; j < int4_tile_outputs; ++j) {
    const std::int64_t n = n0 + j;
    for (std::int64_t t = 0; t < 4; ++t) {
      dst[j * 4 + t] = n < w.out_features
                           ? static_cast<std::uint8_t>(host_code(w, n, k0 + t) |
                                                       (host_code(w, n, k0 + 4 + t) << 4))
                           : 0;
    }
  }
}

void pack_group_parameters(const quantized_weight& w, std::int64_t n0, std::int64_t g,
                           std::uint8_t* dst) {
  float scales[int4_tile_outputs] = {};
  std::int32_t zeros[int4_tile_outputs] = {};
  for (std::int64_t j = 0; j < int4_tile_outputs && n0 + j < w.out_features; ++j) {
    scales[j] = w.scales.as<const float>()[(n0 + j) * w.num_groups() + g];
    zeros[j] = w.zeros.as<const std::uint8_t>()[(n0 + j) * w.num_groups() + g];
  }
  std::memcpy(dst, scales, sizeof scales);
  std::memcpy(dst + sizeof scales, zeros, sizeof zeros);
}

}  // namespace

bool has_int4_tiles_layout(const quantized_weight& host) {
  return host.format == weight_format::int4 && host.packing == 0 && host.block_rows == 1 &&
         !host.zeros.empty() && host.in_features % int4_unit_codes == 0 &&
         (host.num_groups() == 1 || host.group_size % int4_unit_codes == 0);
}

int4_tiles_layout int4_tiles_layout_of(const quantized_weight& w) {
  const std::int64_t columns = group_columns(w);
  int4_tiles_layout l;
  l.num_tiles = (w.out_features + int4_tile_outputs - 1) / int4_tile_outputs;
  l.group_bytes = columns / int4_unit_codes * int4_unit_bytes + int4_group_parameter_bytes;
  const std::int64_t last_columns = w.in_features - (w.num_groups() - 1) * columns;
  l.tile_bytes = (w.num_groups() - 1) * l.group_bytes +
                 last_columns / int4_unit_codes * int4_unit_bytes + int4_group_parameter_bytes;
  return l;
}

void pack_int4_tiles(const quantized_weight& host, std::uint8_t* dst) {
  KERNEL_CHECK("pack_int4_tiles", has_int4_tiles_layout(host));
  const int4_tiles_layout l = int4_tiles_layout_of(host);
  const std::int64_t columns = group_columns(host);
  for (std::int64_t tile = 0; tile < l.num_tiles; ++tile) {
    const std::int64_t n0 = tile * int4_tile_outputs;
    std::uint8_t* out = dst + tile * l.tile_bytes;
    for (std::int64_t g = 0; g < host.num_groups(); ++g) {
      const std::int64_t end = std::min((g + 1) * columns, host.in_features);
      for (std::int64_t k0 = g * columns; k0 < end; k0 += int4_unit_codes) {
        pack_unit(host, n0, k0, out);
        out += int4_unit_bytes;
      }
      pack_group_parameters(host, n0, g, out);
      out += int4_group_parameter_bytes;
    }
  }
}

}  // namespace pagedserve::kernels::cpu
