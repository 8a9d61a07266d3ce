#pragma once
// Reads the rotary embedding settings of a config.json in either of HF's two spellings:
//   transformers 4.x: top-level "rope_theta" plus optional "rope_scaling" {type|rope_type, ...}
//   transformers 5.x: "rope_parameters" {rope_theta, rope_type, ...}
// When both appear, rope_parameters wins (5.x writes it and ignores the old keys).

#include "runtime/model/json_fields.h"
#include "runtime/model/model_config.h"

namespace pagedserve::detail {

// Problems are recorded in `fields` (the top-level object's reader).
[[nodiscard]] rope_config read_rope_config(json_fields& fields);

}  // namespace pagedserve::detail
