#pragma once
// load_quantized_checkpoint: a HF folder whose linear layers are quantized (`spec`), as a
// checkpoint: every linear the spec quantizes is read in its format and repacked
// (checkpoint::find_quantized under the dense weight's name); every other tensor
// (embeddings, norms, biases, ignored modules, an unquantized lm_head) is read as in a
// dense checkpoint.

#include <filesystem>

#include "common/result.h"
#include "runtime/model/checkpoint.h"
#include "runtime/model/model_config.h"
#include "runtime/quant/quant_spec.h"

namespace pagedserve::quant {

[[nodiscard]] result<checkpoint> load_quantized_checkpoint(const std::filesystem::path& dir,
                                                           const model_config& config,
                                                           const quant_spec& spec);

// "model.layers.0.mlp.up_proj.weight" -> "model.layers.0.mlp.up_proj".
[[nodiscard]] std::string module_of(const std::string& weight_name);

}  // namespace pagedserve::quant
