#pragma once
// Where the shared fixtures live. One setting: the environment variable
// PAGEDSERVE_SHARED_DIR if set, else the CMake cache entry of the same name.

#include <cstdlib>
#include <filesystem>

namespace pagedserve::testing {

inline std::filesystem::path shared_dir() {
  if (const char* env = std::getenv("PAGEDSERVE_SHARED_DIR"); env != nullptr && *env != '\0') {
    return env;
  }
  return PAGEDSERVE_SHARED_DIR_DEFAULT;
}

inline std::filesystem::path goldens_dir() { return shared_dir() / "goldens"; }
inline std::filesystem::path tokenizers_dir() { return shared_dir() / "tokenizers"; }
inline std::filesystem::path bench_dir() { return shared_dir() / "bench"; }

}  // namespace pagedserve::testing
