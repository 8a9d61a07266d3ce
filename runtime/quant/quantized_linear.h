#pragma once
// quantized_linear: one linear layer's quantized weight on the host, in the one layout every
// checkpoint format is repacked into at load (kernels::quantized_weight describes it; this
// owns the bytes). Repacking is exact: the integers and scales are the checkpoint's, only
// their order changes (AWQ's interleave, GPTQ's input-dim packing and stored zero - 1,
// act-order's g_idx become sorted inputs plus input_order).

#include <cstdint>
#include <span>
#include <vector>

#include "kernels/fp8_e4m3.h"
#include "kernels/ops.h"

namespace pagedserve::quant {

struct quantized_linear {
  kernels::weight_format format = kernels::weight_format::int4;
  std::int64_t out_features = 0;
  std::int64_t in_features = 0;
  std::int64_t group_size = 0;            // inputs per scale (the whole row: in_features)
  std::int64_t block_rows = 1;            // fp8: rows per scale; int4/int8: 1
  std::vector<std::uint8_t> codes;        // as kernels::quantized_weight::codes
  std::vector<float> scales;              // [ceil(out / block_rows), num_groups()]
  std::vector<std::uint8_t> zeros;        // [out, num_groups()] for int4/int8
  std::vector<std::int32_t> input_order;  // empty, or a permutation of [0, in)
  bool fp8_activations = false;           // as kernels::quantized_weight::fp8_activations

  [[nodiscard]] std::int64_t num_groups() const {
    return (in_features + group_size - 1) / group_size;
  }
  [[nodiscard]] std::int64_t num_scale_rows() const {
    return (out_features + block_rows - 1) / block_rows;
  }
  // The code of W[n, k'] where k' indexes codes (the k'-th input in input_order's order).
  [[nodiscard]] std::uint8_t code(std::int64_t n, std::int64_t k) const;
  // Bytes of weight memory (codes, scales, zeros, order): what the backend holds.
  [[nodiscard]] std::int64_t num_bytes() const;
  // Views of this layer's memory as the kernels read it (host memory: the CPU backend).
  [[nodiscard]] kernels::quantized_weight host_view() const;
};

// The e4m3fn conversions (kernels/fp8_e4m3.h), for loaders and writers.
using kernels::e4m3_to_f32;
using kernels::f32_to_e4m3;

// W [out, in] in fp32, row-major in the original input order: (q - z) * s or e4m3(q) * s,
// each element one fp32 product. The reference every kernel and the dequantized twin of a
// quantized folder are checked against.
[[nodiscard]] std::vector<float> dequantize(const quantized_linear& layer);

}  // namespace pagedserve::quant
