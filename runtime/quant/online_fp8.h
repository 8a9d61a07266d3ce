#pragma once
// quantize_linears_fp8: `--quantization fp8` on a 16/32-bit checkpoint (vLLM's online fp8):
// every linear weight of the layers (not the embeddings, not the lm_head) becomes e4m3 with
// one scale per output channel, max|row| / 448, added as the checkpoint's quantized layer of
// that name, marked W8A8 as vLLM runs it (fp8_activations: the CUDA backend quantizes x per
// token for large batches); activations stay in fp32 on the CPU (W8A16).

#include "runtime/model/checkpoint.h"
#include "runtime/model/model_config.h"

namespace pagedserve::quant {

void quantize_linears_fp8(const model_config& config, checkpoint& weights);

}  // namespace pagedserve::quant
