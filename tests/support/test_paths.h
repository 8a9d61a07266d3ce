#pragma once
// Where a test finds the project's files, its own build and its fixtures. Defined in one
// generated file (test_paths.cpp.in), not as compile definitions: an absolute path on every
// test's command line would make each clone of the project miss the compiler cache.

#include <filesystem>

namespace pagedserve::testing {

// The source tree (models/, config/, web/, scripts/).
std::filesystem::path source_dir();
// The build tree (bin/ holds the programs).
std::filesystem::path binary_dir();
// The fixtures (tests/data/README.md): the environment variable PAGEDSERVE_TESTDATA_DIR if
// set, else the CMake cache entry of the same name.
std::filesystem::path testdata_dir();
// The demo corpus the demo_corpus fixture prepares in the build tree; empty without node
// and npm (there is none then).
std::filesystem::path demo_corpus_dir();

}  // namespace pagedserve::testing
