#pragma once
// Runs the built `pagedserve` binary as a user would, for end-to-end CLI tests.

#include <filesystem>
#include <string>

#include "tests/support/run_command.h"
#include "tests/support/test_paths.h"

namespace pagedserve::testing {

using cli_result = command_result;  // stderr goes to the test log

// Runs build/bin/<binary> with `args` appended, through the shell (quote paths yourself).
inline cli_result run_built_binary(const std::string& binary, const std::string& args) {
  const std::filesystem::path path = pagedserve::testing::binary_dir() / "bin" / binary;
  return run_command(path.string() + " " + args);
}

// `args` is appended to the binary's path and run by the shell (quote paths yourself).
inline cli_result run_pagedserve(const std::string& args) {
  return run_built_binary("pagedserve", args);
}

}  // namespace pagedserve::testing
