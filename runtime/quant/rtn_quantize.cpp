#include "runtime/quant/rtn_quantize.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "kernels/cuda/half_bits.h"  // host-only f16 <-> f32 bit conversions (no CUDA types)
#include "runtime/model/dtype.h"

namespace pagedserve::quant {
namespace {

using kernels::weight_format;

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "rtn_quantize: %s\n", what);
  std::abort();
}

// torch.round: half to even (the default rounding mode, FE_TONEAREST).
float round_even(float x) { return std::nearbyint(x); }

int clamp_int(float x, int lo, int hi) {
  return static_cast<int>(std::clamp(x, static_cast<float>(lo), static_cast<float>(hi)));
}

// An fp16 scale of 0 would make every code of its group infinite; it only happens for groups
// whose range is below 2^-25, where the smallest fp16 subnormal serves as well.
float fp16_scale(float s) {
  const float rounded = round_to_dtype(s, weight_dtype::f16);
  return rounded > 0.0F ? rounded : 0x1.0p-24F;
}

struct int_params {
  float scale = 1.0F;  // fp16-exact
  int zero = 0;
};

// AutoAWQ pseudo_quantize_tensor (zero_point=True).
int_params awq_params(float lo, float hi, int maxq) {
  const float s = fp16_scale(std::max(hi - lo, 1e-5F) / static_cast<float>(maxq));
  return {s, clamp_int(-round_even(lo / s), 0, maxq)};
}

// AutoGPTQ / GPTQModel Quantizer.find_params, including its mask: the symmetric range
// becomes [-xmax, xmax] only where xmin < 0, so a group with no negative weight keeps
// xmin = 0 (scale xmax / maxq, zero (maxq + 1) / 2: its upper half clips).
int_params gptq_params(float lo, float hi, int maxq, bool symmetric, int min_zero) {
  float xmin = std::min(lo, 0.0F);
  float xmax = std::max(hi, 0.0F);
  if (symmetric) {
    xmax = std::max(std::fabs(xmin), xmax);
    if (xmin < 0.0F) xmin = -xmax;
  }
  if (xmin == 0.0F && xmax == 0.0F) {
    xmin = -1.0F;
    xmax = 1.0F;
  }
  const float s = fp16_scale((xmax - xmin) / static_cast<float>(maxq));
  if (symmetric) return {s, (maxq + 1) / 2};
  return {s, clamp_int(round_even(-xmin / s), min_zero, maxq)};
}

void check_int_options(std::int64_t in, const int_rtn_options& options) {
  if (options.bits != 4 && options.bits != 8) fail("bits must be 4 or 8");
  if (options.group_size == 0 || options.group_size < -1) fail("group_size must be > 0 or -1");
  if (options.input_order.empty()) return;
  if (static_cast<std::int64_t>(options.input_order.size()) != in) fail("input_order size");
  std::vector<bool> seen(static_cast<std::size_t>(in), false);
  for (std::int32_t k : options.input_order) {
    if (k < 0 || k >= in || seen[static_cast<std::size_t>(k)])
      fail("input_order: not a permutation");
    seen[static_cast<std::size_t>(k)] = true;
  }
}

void store_code(quantized_linear& layer, std::int64_t n, std::int64_t j, int q) {
  const auto code = static_cast<std::uint8_t>(q);
  if (layer.format == weight_format::int8) {
    layer.codes[static_cast<std::size_t>(n * layer.in_features + j)] = code;
    return;
  }
  const std::int64_t row_bytes = (layer.in_features + 1) / 2;
  const auto shift = static_cast<unsigned>(4 * (j % 2));  // even j: low nibble
  layer.codes[static_cast<std::size_t>(n * row_bytes + j / 2)] |=
      static_cast<std::uint8_t>(code << shift);
}

// One group of row n: inputs at positions [begin, end) of the quantization order.
void quantize_int_group(std::span<const float> row, std::int64_t n, std::int64_t g,
                        std::int64_t begin, std::int64_t end, const int_rtn_options& options,
                        quantized_linear& layer) {
  const auto column = [&](std::int64_t j) {
    return options.input_order.empty() ? j : options.input_order[static_cast<std::size_t>(j)];
  };
  float lo = std::numeric_limits<float>::infinity();
  float hi = -lo;
  for (std::int64_t j = begin; j < end; ++j) {
    lo = std::min(lo, row[static_cast<std::size_t>(column(j))]);
    hi = std::max(hi, row[static_cast<std::size_t>(column(j))]);
  }
  const int maxq = (1 << options.bits) - 1;
  const int_params p = options.scheme == int_scheme::awq
                           ? awq_params(lo, hi, maxq)
                           : gptq_params(lo, hi, maxq, options.scheme == int_scheme::gptq_symmetric,
                                         options.min_zero);
  const auto slot = static_cast<std::size_t>(n * layer.num_groups() + g);
  layer.scales[slot] = p.scale;
  layer.zeros[slot] = static_cast<std::uint8_t>(p.zero);
  for (std::int64_t j = begin; j < end; ++j) {
    const float w = row[static_cast<std::size_t>(column(j))];
    store_code(layer, n, j,
               clamp_int(round_even(w / p.scale) + static_cast<float>(p.zero), 0, maxq));
  }
}

float dtype_epsilon(weight_dtype dtype) {
  switch (dtype) {
    case weight_dtype::f32:
      return 0x1.0p-23F;
    case weight_dtype::bf16:
      return 0x1.0p-7F;
    case weight_dtype::f16:
      return 0x1.0p-10F;
  }
  std::abort();
}

// One fp8 tile: rows [r0, r1) x columns [c0, c1), scale slot `slot`.
void quantize_fp8_tile(std::span<const float> w, std::int64_t in, std::int64_t r0, std::int64_t r1,
                       std::int64_t c0, std::int64_t c1, std::size_t slot,
                       const fp8_rtn_options& options, quantized_linear& layer) {
  float amax = 0.0F;
  for (std::int64_t n = r0; n < r1; ++n) {
    for (std::int64_t k = c0; k < c1; ++k) {
      amax = std::max(amax, std::fabs(w[static_cast<std::size_t>(n * in + k)]));
    }
  }
  float s = round_to_dtype(amax / 448.0F, options.scale_dtype);
  if (s == 0.0F) s = dtype_epsilon(options.scale_dtype);
  layer.scales[slot] = s;
  for (std::int64_t n = r0; n < r1; ++n) {
    for (std::int64_t k = c0; k < c1; ++k) {
      const auto i = static_cast<std::size_t>(n * in + k);
      layer.codes[i] = f32_to_e4m3(std::clamp(w[i] / s, -448.0F, 448.0F));
    }
  }
}

}  // namespace

float round_to_dtype(float value, weight_dtype dtype) {
  switch (dtype) {
    case weight_dtype::f32:
      return value;
    case weight_dtype::bf16:
      return bf16_to_f32(f32_to_bf16(value));
    case weight_dtype::f16:
      return kernels::cuda::f16_bits_to_f32(kernels::cuda::f32_to_f16_bits(value));
  }
  std::abort();
}

quantized_linear quantize_int_rtn(std::span<const float> w, std::int64_t out, std::int64_t in,
                                  const int_rtn_options& options) {
  check_int_options(in, options);
  if (static_cast<std::int64_t>(w.size()) != out * in) fail("w.size() != out * in");
  quantized_linear layer;
  layer.format = options.bits == 4 ? weight_format::int4 : weight_format::int8;
  layer.out_features = out;
  layer.in_features = in;
  layer.group_size = options.group_size == -1 ? in : options.group_size;
  layer.input_order = options.input_order;
  const std::int64_t row_bytes = options.bits == 4 ? (in + 1) / 2 : in;
  layer.codes.assign(static_cast<std::size_t>(out * row_bytes), 0);
  layer.scales.assign(static_cast<std::size_t>(out * layer.num_groups()), 0.0F);
  layer.zeros.assign(layer.scales.size(), 0);
  for (std::int64_t n = 0; n < out; ++n) {
    const auto row = w.subspan(static_cast<std::size_t>(n * in), static_cast<std::size_t>(in));
    for (std::int64_t g = 0; g < layer.num_groups(); ++g) {
      const std::int64_t begin = g * layer.group_size;
      quantize_int_group(row, n, g, begin, std::min(begin + layer.group_size, in), options, layer);
    }
  }
  return layer;
}

quantized_linear quantize_fp8_rtn(std::span<const float> w, std::int64_t out, std::int64_t in,
                                  const fp8_rtn_options& options) {
  if (static_cast<std::int64_t>(w.size()) != out * in) fail("w.size() != out * in");
  if (options.block_rows <= 0 || options.block_cols <= 0) fail("block sizes must be positive");
  quantized_linear layer;
  layer.format = weight_format::fp8_e4m3;
  layer.out_features = out;
  layer.in_features = in;
  const bool block = options.strategy == fp8_strategy::block;
  layer.block_rows =
      block ? options.block_rows : (options.strategy == fp8_strategy::tensor ? out : 1);
  layer.group_size = block ? options.block_cols : in;
  layer.codes.assign(static_cast<std::size_t>(out * in), 0);
  layer.scales.assign(static_cast<std::size_t>(layer.num_scale_rows() * layer.num_groups()), 0.0F);
  for (std::int64_t br = 0; br < layer.num_scale_rows(); ++br) {
    const std::int64_t r0 = br * layer.block_rows;
    for (std::int64_t g = 0; g < layer.num_groups(); ++g) {
      const std::int64_t c0 = g * layer.group_size;
      quantize_fp8_tile(w, in, r0, std::min(r0 + layer.block_rows, out), c0,
                        std::min(c0 + layer.group_size, in),
                        static_cast<std::size_t>(br * layer.num_groups() + g), options, layer);
    }
  }
  return layer;
}

}  // namespace pagedserve::quant
