#pragma once
// The fixtures under tests/data (its README says where each came from).

#include <filesystem>

#include "tests/support/test_paths.h"

namespace pagedserve::testing {

inline std::filesystem::path goldens_dir() { return testdata_dir() / "goldens"; }
inline std::filesystem::path tokenizers_dir() { return testdata_dir() / "tokenizers"; }
inline std::filesystem::path bench_dir() { return testdata_dir() / "bench"; }

}  // namespace pagedserve::testing
