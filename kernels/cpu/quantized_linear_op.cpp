// linear with a quantized W (kernels/ops.h, quantized_weight): int4 / int8 codes with a zero
// point and a scale per group, or fp8 e4m3 codes with a scale per block.
//
// x is prepared once per call (simd_kernels.h, quantized_matmul_args): its columns gathered
// into code order (act-order's input_order), int4 chunks split into even and odd columns,
// zero padded, and for int formats the sum of x over each group. Then, as the dense linear,
// each OpenMP thread takes whole panels of W's rows, so every code byte is read once per call
// whatever the batch:
//   - few rows of x (decode): the codes are unpacked in registers inside the product, each
//     unpacked vector serving a tile of up to 4 rows of x;
//   - many rows (prefill), or groups that end inside a 16-byte chunk of codes: the panel is
//     dequantized to fp32 into a per-thread scratch (within L2) and the fp32 tiles run on it.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "kernels/check.h"
#include "kernels/cpu/int4_tiles.h"
#include "kernels/cpu/linear_op.h"
#include "kernels/cpu/parallel.h"
#include "kernels/cpu/simd/simd_kernels.h"

namespace pagedserve::kernels::cpu {
namespace {

using simd::code_format;
using simd::quant_chunk_codes;

// From this many rows of x a panel is dequantized once rather than unpacked per tile of
// 4 rows: measured with bench/model/bench_cpu_linear on AVX-512 (weights in cache), the
// fused path ran 0.9-1.1x the fp32 linear at 8 rows and 0.6-1.0x at 16, the dequantized one
// 0.8-0.85x at both.
constexpr std::int64_t min_dequantized_rows = 16;

code_format code_format_of(weight_format format) {
  if (format == weight_format::int4) return code_format::int4;
  return format == weight_format::int8 ? code_format::int8 : code_format::fp8_e4m3;
}

std::int64_t code_bytes_per_row(const quantized_weight& w) {
  return w.format == weight_format::int4 ? (w.in_features + 1) / 2 : w.in_features;
}

bool has_zeros(const quantized_weight& w) { return w.format != weight_format::fp8_e4m3; }

void check_weight(const quantized_weight& w) {
  KERNEL_CHECK("linear", w.is_quantized() && w.packing == 0);
  KERNEL_CHECK("linear", w.out_features > 0 && w.in_features > 0);
  KERNEL_CHECK("linear", w.group_size > 0 && w.block_rows > 0);
  KERNEL_CHECK("linear", w.codes.type == dtype::u8);
  KERNEL_CHECK("linear", w.codes.numel() == w.out_features * code_bytes_per_row(w));
  const std::int64_t scale_rows = (w.out_features + w.block_rows - 1) / w.block_rows;
  KERNEL_CHECK("linear", w.scales.type == dtype::f32);
  KERNEL_CHECK("linear", w.scales.numel() == scale_rows * w.num_groups());
  if (has_zeros(w)) {
    KERNEL_CHECK("linear", w.zeros.type == dtype::u8);
    KERNEL_CHECK("linear", w.zeros.numel() == w.out_features * w.num_groups());
  }
  check_input_order(w);
}

// The prepared x's column of code column k: int4 chunks of 32 hold their 16 even columns,
// then their 16 odd ones (the order of low, then high nibbles of 16 bytes). The per-ISA code
// keeps its own copy (simd_quant_matmul.inc: it calls no inline function of a shared file).
std::int64_t prepared_column(weight_format format, std::int64_t k) {
  if (format != weight_format::int4) return k;
  const std::int64_t r = k % quant_chunk_codes;
  return k - r + (r % 2) * (quant_chunk_codes / 2) + r / 2;
}

struct prepared_input {
  std::int64_t ldx = 0;
  std::vector<float> x;              // [num_rows, ldx], zero padded
  std::vector<float> group_sums;     // [num_rows, num_groups] (int formats)
  std::vector<std::int8_t> x_int8;   // where asked for: [num_rows, ldx64]
  std::vector<float> x_int8_scales;  // [num_rows, num_groups]
};

// x's row gathered into code order and laid out as the kernels read it; the group sums in
// double, so that the zero point's term carries no more than one rounding.
void prepare_row(const quantized_weight& w, const float* x, float* dst, float* group_sums) {
  const std::int32_t* order =
      w.input_order.empty() ? nullptr : w.input_order.as<const std::int32_t>();
  for (std::int64_t g = 0; g < w.num_groups(); ++g) {
    const std::int64_t end =
        (g + 1) * w.group_size < w.in_features ? (g + 1) * w.group_size : w.in_features;
    double sum = 0.0;
    for (std::int64_t k = g * w.group_size; k < end; ++k) {
      const float value = x[order == nullptr ? k : order[k]];
      dst[prepared_column(w.format, k)] = value;
      sum += value;
    }
    if (group_sums != nullptr) group_sums[g] = static_cast<float>(sum);
  }
}

prepared_input prepare_input(const linear_params& p, std::int64_t num_rows) {
  const quantized_weight& w = p.quantized;
  prepared_input prepared;
  prepared.ldx = (w.in_features + quant_chunk_codes - 1) / quant_chunk_codes * quant_chunk_codes;
  prepared.x.assign(static_cast<std::size_t>(num_rows * prepared.ldx), 0.0F);
  if (has_zeros(w)) prepared.group_sums.resize(static_cast<std::size_t>(num_rows * w.num_groups()));
  const float* x = p.x.as<const float>();
  for (std::int64_t r = 0; r < num_rows; ++r) {
    float* sums = has_zeros(w) ? prepared.group_sums.data() + r * w.num_groups() : nullptr;
    prepare_row(w, x + r * w.in_features, prepared.x.data() + r * prepared.ldx, sums);
  }
  return prepared;
}

// round-to-nearest-even of |v| < 2^22 without a libm call: adding 1.5 * 2^23 leaves no
// fraction bits, and the subtraction is exact.
float round_to_integer(float v) {
  constexpr float shift = 0x1.8p23F;
  return (v + shift) - shift;
}

// One group of one row of the prepared x in int8, round(x * 127 / max |x|), laid out as
// simd::quantized_matmul_args::x_int8: column k's byte in its 64-column step holds the low
// nibbles' columns (the first 16 of each 32-column chunk) in bytes 0..31, the high ones in
// 32..63. Returns the scale, max |x| / 127, and the group's sum of the int8 values.
struct int8_group {
  float scale = 0.0F;
  std::int64_t sum = 0;
};

int8_group quantize_group_to_int8(const float* x, std::int64_t begin, std::int64_t end,
                                  std::int8_t* dst) {
  float max_abs = 0.0F;
  for (std::int64_t k = begin; k < end; ++k) max_abs = std::max(max_abs, std::fabs(x[k]));
  if (max_abs == 0.0F) return {};
  const float inverse = 127.0F / max_abs;
  std::int64_t sum = 0;
  for (std::int64_t k = begin; k < end; ++k) {
    const std::int64_t chunk = k / quant_chunk_codes;
    const std::int64_t within = k % quant_chunk_codes;
    const std::int64_t byte =
        (chunk / 2) * 64 + (within / 16) * 32 + (chunk % 2) * 16 + within % 16;
    const auto q = static_cast<std::int8_t>(
        std::min(std::max(round_to_integer(x[k] * inverse), -127.0F), 127.0F));
    dst[byte] = q;
    sum += q;
  }
  return {max_abs / 127.0F, sum};
}

// The prepared x in int8, group by group (quantized_matmul_args::x_int8). The zero points'
// group sums become those of the int8 x too, so that the product is exactly
// sum (q - z) s * x_int8 sx, llama.cpp's Q4_1 x Q8_1 (which keeps the sum of its x block).
void quantize_x_to_int8(const quantized_weight& w, prepared_input& prepared,
                        std::int64_t num_rows) {
  const std::int64_t ldx64 = (prepared.ldx + 63) / 64 * 64;
  const std::int64_t groups = w.num_groups();
  const std::int64_t group_columns = groups == 1 ? prepared.ldx : w.group_size;
  prepared.x_int8.assign(static_cast<std::size_t>(num_rows * ldx64), 0);
  prepared.x_int8_scales.resize(static_cast<std::size_t>(num_rows * groups));
  for (std::int64_t r = 0; r < num_rows; ++r) {
    const float* x = prepared.x.data() + r * prepared.ldx;
    for (std::int64_t g = 0; g < groups; ++g) {
      const std::int64_t end = std::min((g + 1) * group_columns, prepared.ldx);
      const int8_group q =
          quantize_group_to_int8(x, g * group_columns, end, prepared.x_int8.data() + r * ldx64);
      prepared.x_int8_scales[static_cast<std::size_t>(r * groups + g)] = q.scale;
      prepared.group_sums[static_cast<std::size_t>(r * groups + g)] =
          q.scale * static_cast<float>(q.sum);
    }
  }
}

// Whether x goes to the kernels in int8: asked for, int4 W, a kernel set that multiplies
// int4 by int8, groups of whole 64-column steps (or one group: the int32 sums are scaled per
// group), and the fused path's few rows.
bool takes_int8_x(const quantized_linear_options& options, const simd::kernel_set& kernels,
                  const quantized_weight& w) {
  return options.int8_activations && kernels.int4_times_int8_x && w.format == weight_format::int4 &&
         (w.num_groups() == 1 || w.group_size % 64 == 0);
}

simd::quantized_matmul_args make_args(const linear_params& p, const prepared_input& prepared,
                                      std::int64_t num_rows) {
  const quantized_weight& w = p.quantized;
  simd::quantized_matmul_args a;
  a.format = code_format_of(w.format);
  a.x = prepared.x.data();
  a.ldx = prepared.ldx;
  a.x_group_sums = prepared.group_sums.empty() ? nullptr : prepared.group_sums.data();
  a.out = p.out.as<float>();
  a.ldo = w.out_features;
  a.m = num_rows;
  a.n = w.out_features;
  a.k = w.in_features;
  a.codes = w.codes.as<const std::uint8_t>();
  a.code_stride = code_bytes_per_row(w);
  a.scales = w.scales.as<const float>();
  a.zeros = has_zeros(w) ? w.zeros.as<const std::uint8_t>() : nullptr;
  a.group_size = w.group_size;
  a.num_groups = w.num_groups();
  a.block_rows = w.block_rows;
  a.x_int8 = prepared.x_int8.empty() ? nullptr : prepared.x_int8.data();
  a.x_int8_scales = prepared.x_int8_scales.empty() ? nullptr : prepared.x_int8_scales.data();
  return a;
}

// Whether every group but the last is whole 16-byte chunks of codes (the fused kernel's
// precondition): the usual group sizes (32, 64, 128) and per-channel scales are.
bool groups_are_whole_chunks(const quantized_weight& w) {
  const std::int64_t chunk_codes = w.format == weight_format::int4 ? 32 : 16;
  return w.num_groups() == 1 || w.group_size % chunk_codes == 0;
}

// A panel's fp32 rows, per thread: kept across calls (the OpenMP team's threads live on), as
// a fresh allocation of this size per call would fault its pages in again every time.
float* panel_scratch(std::int64_t floats) {
  static thread_local std::vector<float> scratch;
  if (static_cast<std::int64_t>(scratch.size()) < floats) {
    scratch.resize(static_cast<std::size_t>(floats));
  }
  return scratch.data();
}

void run_fused(const simd::kernel_set& kernels, const simd::quantized_matmul_args& a,
               std::int64_t num_panels, bool parallel) {
  const simd::quantized_matmul_panel_fn panel = kernels.quantized_matmul_panel;
  const std::int64_t out_features = a.n;
#pragma omp parallel for schedule(dynamic, 1) if (parallel)
  for (std::int64_t i = 0; i < num_panels; ++i) {
    const std::int64_t end = (i + 1) * panel_rows;
    panel(a, i * panel_rows, end < out_features ? end : out_features);
  }
}

// Dequantized panels times the prepared x through the fp32 tiles: padded columns are zero in
// x, so the product over ldx columns is the product over k.
void run_dequantized(const simd::kernel_set& kernels, const simd::quantized_matmul_args& a,
                     std::int64_t num_panels, bool parallel) {
  const std::int64_t out_features = a.n;
#pragma omp parallel for schedule(dynamic, 1) if (parallel)
  for (std::int64_t i = 0; i < num_panels; ++i) {
    const std::int64_t begin = i * panel_rows;
    const std::int64_t end = begin + panel_rows < out_features ? begin + panel_rows : out_features;
    float* w = panel_scratch(panel_rows * a.ldx);
    kernels.dequantize_panel(a, begin, end, w);
    const simd::matmul_args dense{a.x, a.ldx, w, a.ldx, a.out + begin, a.ldo, a.m, a.ldx};
    kernels.matmul_panel(dense, 0, end - begin);
  }
}

}  // namespace

void check_input_order(const quantized_weight& w) {
  if (w.input_order.empty()) return;
  KERNEL_CHECK("linear", w.input_order.type == dtype::i32);
  KERNEL_CHECK("linear", w.input_order.numel() == w.in_features);
  const std::int32_t* order = w.input_order.as<const std::int32_t>();
  for (std::int64_t k = 0; k < w.in_features; ++k) {
    KERNEL_CHECK("linear", order[k] >= 0 && order[k] < w.in_features);
  }
}

void quantized_linear(const linear_params& p) { quantized_linear(p, simd::active_kernels()); }

void quantized_linear(const linear_params& p, const simd::kernel_set& kernels,
                      const quantized_linear_options& options) {
  const quantized_weight& w = p.quantized;
  if (w.packing == int4_tiles_packing) {
    int4_tiles_linear(p, kernels, options);
    return;
  }
  check_weight(w);
  KERNEL_CHECK("linear", p.x.type == dtype::f32 && p.out.type == dtype::f32);
  KERNEL_CHECK("linear", p.x.numel() % w.in_features == 0);
  const std::int64_t num_rows = p.x.numel() / w.in_features;
  KERNEL_CHECK("linear", p.out.numel() == num_rows * w.out_features);
  if (num_rows == 0) return;
  prepared_input prepared = prepare_input(p, num_rows);
  const bool fused = num_rows < min_dequantized_rows && groups_are_whole_chunks(w);
  if (fused && takes_int8_x(options, kernels, w)) quantize_x_to_int8(w, prepared, num_rows);
  const simd::quantized_matmul_args a = make_args(p, prepared, num_rows);
  const std::int64_t num_panels = (w.out_features + panel_rows - 1) / panel_rows;
  const bool parallel = num_rows * w.out_features * w.in_features >= min_parallel_matmul;
  if (fused) {
    run_fused(kernels, a, num_panels, parallel);
  } else {
    run_dequantized(kernels, a, num_panels, parallel);
  }
  if (!p.bias.empty()) add_bias(p, num_rows, w.out_features);
}

}  // namespace pagedserve::kernels::cpu
