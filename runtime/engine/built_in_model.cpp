#include "runtime/engine/built_in_model.h"

#include <cstdlib>
#include <filesystem>

namespace pagedserve {
namespace {

namespace fs = std::filesystem;

// A name that is also a folder here is the folder.
bool names(const engine_config& config, std::string_view name) {
  return config.model_dir == name && !fs::is_directory(config.model_dir);
}

bool has_checkpoint(const fs::path& dir) {
  std::error_code ec;
  return fs::is_regular_file(dir / "config.json", ec);
}

}  // namespace

bool uses_random_demo_model(const engine_config& config) {
  return config.model_config_file.empty() && names(config, random_model_name);
}

bool uses_built_in_model(const engine_config& config) {
  return config.model_config_file.empty() &&
         (config.model_dir.empty() || names(config, built_in_model_name));
}

std::vector<fs::path> built_in_model_candidates(std::string_view name) {
  std::vector<fs::path> candidates;
  if (const char* dir = std::getenv("PAGEDSERVE_BUILT_IN_MODEL_DIR"); dir != nullptr && *dir) {
    candidates.push_back(name == built_in_model_name ? fs::path(dir)
                                                     : fs::path(dir).parent_path() / name);
  }
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    candidates.push_back(exe.parent_path().parent_path() / "share" / "pagedserve" / "models" /
                         name);
  }
  candidates.push_back(fs::path(PAGEDSERVE_SOURCE_MODELS_DIR) / name);
  return candidates;
}

result<fs::path> built_in_model_dir(std::string_view name) {
  std::string looked;
  for (const fs::path& dir : built_in_model_candidates(name)) {
    if (has_checkpoint(dir)) return dir;
    looked += (looked.empty() ? "" : ", ") + dir.string();
  }
  return make_error(error_code::not_found,
                    "the built-in model " + std::string(name) + " is not installed (looked in " +
                        looked +
                        "); set PAGEDSERVE_BUILT_IN_MODEL_DIR to its folder, pass --model with "
                        "a HF checkpoint folder, or --model " +
                        std::string(random_model_name) + " for random weights");
}

result<fs::path> resolved_model_dir(const engine_config& config) {
  if (!config.model_config_file.empty() || uses_random_demo_model(config)) return fs::path();
  if (uses_built_in_model(config)) return built_in_model_dir();
  return fs::path(config.model_dir);
}

result<fs::path> resolved_draft_model_dir(const engine_config& config) {
  const std::string& name = config.speculative.model;
  if (name == built_in_draft_model_name && !fs::is_directory(name)) {
    return built_in_model_dir(built_in_draft_model_name);
  }
  return fs::path(name);
}

std::string engine_model_name(const engine_config& config) {
  if (uses_random_demo_model(config)) return std::string(random_model_name);
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
