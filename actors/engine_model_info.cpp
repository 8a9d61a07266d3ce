#include "actors/engine_model_info.h"

#include <filesystem>

#include "runtime/engine/model_loading.h"
#include "runtime/model/demo_model.h"

namespace pagedserve {

std::string engine_model_name(const engine_config& config) {
  if (uses_random_demo_model(config)) return std::string(demo_model_name);
  if (uses_built_in_model(config)) return std::string(built_in_model_name);
  if (!config.model_dir.empty()) {
    // "models/llama/" names "llama", as "models/llama" does.
    std::filesystem::path dir(config.model_dir);
    if (!dir.has_filename()) dir = dir.parent_path();
    return dir.filename().string();
  }
  return std::filesystem::path(config.model_config_file).stem().string();
}

}  // namespace pagedserve
