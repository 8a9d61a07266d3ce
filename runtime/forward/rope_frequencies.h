#pragma once
// The rotary inverse frequencies of a model, with its rope scaling applied, as HF computes
// them: inv_freq[i] = 1 / theta^(2i / head_dim), then
//   linear: inv_freq / factor
//   llama3: wavelengths longer than original_max / low_freq_factor are divided by factor,
//           shorter than original_max / high_freq_factor are kept, and the band between is
//           interpolated (HF's _compute_llama3_parameters).
// Computed in double and rounded once to fp32 (the reference computes in fp32; the
// difference is at most an ulp or so of inv_freq).
//
// A bf16 checkpoint: HF holds the model in bf16, and its inv_freq buffer is cast with the
// module, so the frequencies it rotates by are bf16-rounded (then widened to fp32 when it
// computes cos/sin). We round the same way: the tiny-llama-bf16 golden differs from
// unrounded frequencies by ~1e-2 in the logits at 100 tokens and matches to ~1e-6 with
// rounding. (f16 checkpoints keep fp32 frequencies: not verified against a reference.)

#include <vector>

#include "runtime/model/model_config.h"

namespace pagedserve::forward {

[[nodiscard]] std::vector<float> rope_inv_freq(const rope_config& rope, std::int64_t head_dim,
                                               weight_dtype storage = weight_dtype::f32);

}  // namespace pagedserve::forward
