#pragma once
// Runs the built `pagedserve` binary as a user would, for end-to-end CLI tests.

#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include "tests/support/test_paths.h"

namespace pagedserve::testing {

struct cli_result {
  int exit_status = -1;  // -1 when the process did not exit normally
  std::string out;       // stdout; stderr goes to the test log
};

// Runs build/bin/<binary> with `args` appended, through the shell (quote paths yourself).
inline cli_result run_built_binary(const std::string& binary, const std::string& args) {
  const std::filesystem::path path = pagedserve::testing::binary_dir() / "bin" / binary;
  const std::string command = path.string() + " " + args;
  cli_result r;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return r;
  char chunk[4096];
  while (std::fgets(chunk, sizeof chunk, pipe) != nullptr) r.out += chunk;
  const int raw = pclose(pipe);
  r.exit_status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return r;
}

// `args` is appended to the binary's path and run by the shell (quote paths yourself).
inline cli_result run_pagedserve(const std::string& args) {
  return run_built_binary("pagedserve", args);
}

}  // namespace pagedserve::testing
