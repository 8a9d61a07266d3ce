#pragma once
// packing: one quantized linear layer (quant::quantized_linear) as the tensors a checkpoint
// format stores for it, named "<module>.<tensor>" (module: "model.layers.0.self_attn.q_proj").
// Layouts: docs/design/QUANTIZATION.md §1-3. Every packer is exact (the integers and the
// scales are the layer's; only their order and encoding change) and refuses, naming the
// module, a layer its format cannot hold.
//
//   AWQ GEMM   qweight I32 [in, out/8]      output dim packed, nibble i of word c = column
//              qzeros  I32 [in/g, out/8]    8c + {0,2,4,6,1,3,5,7}[i]; zeros stored as is
//              scales  F16 [in/g, out]
//   GPTQ       qweight I32 [in*bits/32, out]  input dim packed in order (original inputs)
//              qzeros  I32 [groups, out*bits/32]  output dim packed in order; v1: z - 1
//              scales  F16 [groups, out]
//              g_idx   I32 [in]             group of each original input (act-order)
//   HF fp8     weight F8_E4M3 [out, in], weight_scale_inv F32 [ceil(out/br), ceil(in/bc)]
//              (the dequantization multiplier, despite its name)
//   compressed-tensors fp8  weight F8_E4M3 [out, in], weight_scale in the model's dtype:
//              tensor (1), channel (out, 1), block (ceil(out/br), ceil(in/bc))

#include <string>
#include <vector>

#include "common/result.h"
#include "quantize/safetensors_writer.h"
#include "runtime/model/model_config.h"
#include "runtime/quant/quantized_linear.h"
#include "runtime/quant/rtn_quantize.h"

namespace pagedserve::quantize {

using packed_tensors = std::vector<safetensors_tensor>;

// An int4/int8 layer's scales [out, groups] transposed to [groups, out], as AWQ and GPTQ
// store them (fp16).
[[nodiscard]] std::vector<float> scales_by_group(const quant::quantized_linear& layer);

// Needs int4, no input_order, in % group_size == 0, out % 8 == 0.
[[nodiscard]] result<packed_tensors> pack_awq(const std::string& module,
                                              const quant::quantized_linear& layer);

enum class gptq_version {
  v1,  // checkpoint_format "gptq": qzeros hold z - 1 (z >= 1 required)
  v2,  // checkpoint_format "gptq_v2": qzeros hold z
};

// Needs int4 or int8, in and out multiples of 32 / bits.
[[nodiscard]] result<packed_tensors> pack_gptq(const std::string& module,
                                               const quant::quantized_linear& layer,
                                               gptq_version version);

// HF FineGrainedFP8 (quant_method "fp8"): needs fp8_e4m3.
[[nodiscard]] result<packed_tensors> pack_hf_fp8(const std::string& module,
                                                 const quant::quantized_linear& layer);

// compressed-tensors float-quantized / naive-quantized: needs fp8_e4m3 laid out as
// `strategy` says; `scale_dtype` is the dtype of the model's weights.
[[nodiscard]] result<packed_tensors> pack_compressed_fp8(const std::string& module,
                                                         const quant::quantized_linear& layer,
                                                         quant::fp8_strategy strategy,
                                                         weight_dtype scale_dtype);

}  // namespace pagedserve::quantize
