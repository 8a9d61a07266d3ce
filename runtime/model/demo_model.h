#pragma once
// The random demo model ("demo-random"): a small Llama shape that runs anywhere with dummy
// weights (make_dummy_checkpoint(demo_model_config(), 0)) and the byte-level demo tokenizer,
// built in memory: for tests that need a model and no files. The default model is the shipped,
// trained pagedserve-demo (runtime/engine/built_in_model.h).

#include <string_view>

#include "runtime/model/model_config.h"

namespace pagedserve {

inline constexpr std::string_view demo_model_name = "demo-random";

[[nodiscard]] model_config demo_model_config();

}  // namespace pagedserve
