#pragma once
// kv_scales: the per-layer scales of an fp8 KV cache a checkpoint may carry (fp8 checkpoints
// from llm-compressor or AutoFP8), under the names vLLM reads, first found wins per layer:
//   model.layers.{i}.self_attn.k_scale / v_scale               (vLLM, llm-compressor)
//   model.layers.{i}.self_attn.k_proj.output_scale / v_proj.... (older compressed-tensors)
//   model.layers.{i}.self_attn.kv_scale                        (legacy: one scale for both)
// Convention: stored = fp8(x / scale), x = fp8 * scale.

#include <optional>
#include <vector>

#include "common/result.h"
#include "runtime/model/checkpoint_files.h"
#include "runtime/model/model_config.h"

namespace pagedserve {

// nullopt when no layer has a scale; an error when only some layers have one, or a scale is
// not one finite positive number.
[[nodiscard]] result<std::optional<kv_cache_scales>> read_kv_scales(checkpoint_files& files,
                                                                    const model_config& config);

}  // namespace pagedserve
