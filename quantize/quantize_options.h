#pragma once
// quantize_options: what `pagedserve quantize` writes, and the quantization_config each
// producer writes into config.json for it (docs/design/QUANTIZATION.md §1-3).
//
//   awq              AutoAWQ GEMM, 4 bits, zero points            quant_method "awq"
//   gptq, gptq_v2    AutoGPTQ layout, 4/8 bits, sym or asym,      quant_method "gptq",
//                    act-order (g_idx); v1 stores zeros - 1       checkpoint_format gptq|gptq_v2
//   fp8-block        transformers FineGrainedFP8, 128x128 blocks  quant_method "fp8"
//   fp8-dynamic      llm-compressor FP8_DYNAMIC: channel (or tensor) weights, dynamic
//                    per-token activations, format float-quantized   "compressed-tensors"
//   fp8-weight-only  the same weights, no activation quantization, format naive-quantized

#include <boost/json/object.hpp>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string_view>

#include "common/result.h"
#include "runtime/quant/rtn_quantize.h"

namespace pagedserve::quantize {

enum class quantize_method { awq, gptq, gptq_v2, fp8_block, fp8_dynamic, fp8_weight_only };

struct quantize_options {
  quantize_method method = quantize_method::awq;
  int bits = 4;                   // awq: 4; gptq: 4 or 8
  std::int64_t group_size = 128;  // awq, gptq; -1: one group per row
  bool symmetric = true;          // gptq only (awq always has zero points)
  bool desc_act = false;          // gptq act-order, from W's column norms (no calibration)
  bool lm_head = false;  // gptq, fp8-dynamic, fp8-weight-only: quantize lm_head too (untied)
  quant::fp8_strategy weight_strategy = quant::fp8_strategy::channel;  // fp8-dynamic/-weight-only
  std::filesystem::path dequantized_out;  // also write the fp32 dequantized twin here
  // Benchmarks of a shape without its weights (vLLM's load_format dummy): the source folder
  // holds only config.json, and seeded random weights are quantized.
  bool dummy_weights = false;
  std::uint64_t seed = 0;
};

// "awq", "gptq", "gptq_v2", "fp8-block", "fp8-dynamic", "fp8-weight-only".
[[nodiscard]] std::string_view to_string(quantize_method method);
[[nodiscard]] std::optional<quantize_method> parse_quantize_method(std::string_view name);

[[nodiscard]] bool is_int_method(quantize_method method);
[[nodiscard]] bool is_compressed_tensors(quantize_method method);

// Values the method cannot take (bits, group size, strategy, lm_head): invalid_argument.
[[nodiscard]] status validate(const quantize_options& options);

// The object config.json gets as "quantization_config".
[[nodiscard]] boost::json::object quantization_config(const quantize_options& options);

}  // namespace pagedserve::quantize
