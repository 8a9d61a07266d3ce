#pragma once
// load_generation_defaults: reads the sampling a model's generation_config.json recommends
// (api/generation_defaults.h says which keys and how vLLM reads them).

#include <filesystem>

#include "api/generation_defaults.h"
#include "common/result.h"

namespace pagedserve {

// From <dir>/generation_config.json; none when the file is absent. A value of the wrong
// type or outside the sampler's range is an error naming the file and the key.
[[nodiscard]] result<generation_defaults> load_generation_defaults(
    const std::filesystem::path& dir);

}  // namespace pagedserve
