#pragma once
// run_command: one shell command's exit status and standard output (stderr goes where the
// caller's goes, unless the command redirects it). The tests, the benchmarks and the grammar
// bench's JavaScript baseline all run their helpers (node, promtool, the built binary)
// through it.

#include <sys/wait.h>

#include <cstdio>
#include <string>

namespace pagedserve::testing {

struct command_result {
  int exit_status = -1;  // -1 when the command could not start or did not exit normally
  std::string out;       // its stdout
};

inline command_result run_command(const std::string& command) {
  command_result r;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return r;
  char chunk[4096];
  while (std::fgets(chunk, sizeof chunk, pipe) != nullptr) r.out += chunk;
  const int raw = pclose(pipe);
  r.exit_status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return r;
}

}  // namespace pagedserve::testing
