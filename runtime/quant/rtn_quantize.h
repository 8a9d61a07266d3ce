#pragma once
// rtn_quantize: round-to-nearest quantization of one linear weight W [out, in] (fp32,
// row-major) into quantized_linear, with the producers' formulas (docs/design/
// QUANTIZATION.md §1-3). No calibration: this makes checkpoints in the real formats for
// loader and kernel tests, not models of GPTQ/AWQ quality.
//
// Scales are rounded to their storage dtype (fp16 for AWQ/GPTQ; f32, bf16 or f16 for fp8)
// before any code is computed from them, so dequantize() of the result is exactly what a
// loader of the written checkpoint computes.

#include <cstdint>
#include <span>
#include <vector>

#include "runtime/model/model_config.h"
#include "runtime/quant/quantized_linear.h"

namespace pagedserve::quant {

enum class int_scheme {
  awq,              // AutoAWQ pseudo_quantize_tensor: min/max of the group, zero point
  gptq_symmetric,   // AutoGPTQ find_params, sym: zero (maxq + 1) / 2
  gptq_asymmetric,  // AutoGPTQ find_params, asym: zero round(-xmin / s)
};

struct int_rtn_options {
  int bits = 4;                   // 4 or 8
  std::int64_t group_size = 128;  // inputs per scale; -1: the whole row
  int_scheme scheme = int_scheme::awq;
  // The least zero point stored. GPTQ v1 stores z - 1 and cannot hold z = 0: its writer
  // passes 1 (the groups affected lose their top step, as in AutoGPTQ's "overflow").
  int min_zero = 0;
  // Act-order: the j-th input quantized is input_order[j], and it falls in group
  // j / group_size. Empty: the identity.
  std::vector<std::int32_t> input_order;
};

// W [out, in] -> format int4 (bits 4) or int8 (bits 8), group_size = in when -1.
[[nodiscard]] quantized_linear quantize_int_rtn(std::span<const float> w, std::int64_t out,
                                                std::int64_t in, const int_rtn_options& options);

enum class fp8_strategy {
  tensor,   // one scale
  channel,  // one scale per output row
  block,    // one scale per block_rows x block_cols tile (ceil at the edges)
};

struct fp8_rtn_options {
  fp8_strategy strategy = fp8_strategy::block;
  std::int64_t block_rows = 128;
  std::int64_t block_cols = 128;
  weight_dtype scale_dtype = weight_dtype::f32;  // how the scale is stored
};

// W [out, in] -> format fp8_e4m3: scale = max|tile| / 448 rounded to scale_dtype,
// code = e4m3(clamp(w / scale, -448, 448)). An all-zero tile gets the scale dtype's epsilon
// (compressed-tensors calculate_qparams); its codes are all 0, so it dequantizes to 0.
[[nodiscard]] quantized_linear quantize_fp8_rtn(std::span<const float> w, std::int64_t out,
                                                std::int64_t in, const fp8_rtn_options& options);

// `value` rounded to nearest even in `dtype` (exact for f32).
[[nodiscard]] float round_to_dtype(float value, weight_dtype dtype);

}  // namespace pagedserve::quant
