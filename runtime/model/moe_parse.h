#pragma once
// Reads the experts of a MoE config.json (qwen2_moe, qwen3_moe, mixtral), with the key
// spellings HF uses across versions: the expert count is "num_experts" in 4.x / hub configs
// of the qwen families and "num_local_experts" in mixtral and in qwen3_moe saved by
// transformers >= 5.8 (an attribute_map); either is accepted for any family.

#include "runtime/model/json_fields.h"
#include "runtime/model/model_config.h"

namespace pagedserve::detail {

// The moe_config of `config` (whose family and shape are read). Problems are recorded in
// `fields`; a dense family reads nothing and gets a disabled moe_config.
[[nodiscard]] moe_config read_moe_config(json_fields& fields, const model_config& config);

// Range rules of the experts' keys (called with the other cross-field rules).
void validate_moe_config(json_fields& fields, const model_config& config);

}  // namespace pagedserve::detail
