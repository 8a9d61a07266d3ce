#pragma once
// The built-in demo model: a small Llama shape that runs anywhere with dummy weights
// (make_dummy_checkpoint(demo_model_config(), 0)), so the server and `pagedserve generate`
// work without downloading a checkpoint.

#include <string_view>

#include "runtime/model/model_config.h"

namespace pagedserve {

inline constexpr std::string_view demo_model_name = "pagedserve-demo";

[[nodiscard]] model_config demo_model_config();

}  // namespace pagedserve
