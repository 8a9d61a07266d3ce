#pragma once
// format_readers: one quantized linear layer of a checkpoint, read in its own format and
// repacked into quantized_linear (exactly: the stored integers and scales, reordered).
// `module` is the layer's name without ".weight" ("model.layers.0.self_attn.q_proj");
// `out` x `in` is the shape the model config implies for its weight. Errors name the file,
// the tensor and the value at fault (shapes against the config, missing scales, NaN
// scales, zeros that contradict the format).

#include <cstdint>
#include <string>

#include "common/result.h"
#include "runtime/model/checkpoint_files.h"
#include "runtime/quant/quant_spec.h"
#include "runtime/quant/quantized_linear.h"

namespace pagedserve::quant {

struct linear_shape {
  std::string module;
  std::int64_t out = 0;
  std::int64_t in = 0;
};

// AutoAWQ GEMM: qweight I32 [in, out/8], qzeros I32 [in/g, out/8] (output dim packed with
// the 0,2,4,6,1,3,5,7 interleave), scales [in/g, out].
[[nodiscard]] result<quantized_linear> read_awq_linear(checkpoint_files& files,
                                                       const quant_spec& spec,
                                                       const linear_shape& shape);

// GPTQ: qweight I32 [in*bits/32, out] (input dim packed in order), qzeros I32
// [groups, out*bits/32] (output dim packed in order; v1 stores z - 1), scales [groups, out],
// g_idx I32 [in] (act-order: the group of each input).
[[nodiscard]] result<quantized_linear> read_gptq_linear(checkpoint_files& files,
                                                        const quant_spec& spec,
                                                        const linear_shape& shape);

// FP8 e4m3: weight F8_E4M3 [out, in] with weight_scale_inv (HF fp8 block: the
// dequantization multiplier, not its inverse) or weight_scale (per-tensor, per-channel or
// block; compressed-tensors and HF per-tensor).
[[nodiscard]] result<quantized_linear> read_fp8_linear(checkpoint_files& files,
                                                       const quant_spec& spec,
                                                       const linear_shape& shape);

// The reader `spec.method` names.
[[nodiscard]] result<quantized_linear> read_quantized_linear(checkpoint_files& files,
                                                             const quant_spec& spec,
                                                             const linear_shape& shape);

}  // namespace pagedserve::quant
