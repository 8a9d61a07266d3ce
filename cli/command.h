#pragma once
// Subcommands of the `pagedserve` binary. Each command lives in its own cmd_*.cpp file and
// registers itself with a static `command_registration`; main() dispatches on argv[1].

#include <string_view>
#include <vector>

namespace pagedserve::cli {

struct command {
  std::string_view name;
  std::string_view summary;
  // argv[0] is the command name; returns the process exit code.
  int (*run)(int argc, char** argv);
};

[[nodiscard]] std::vector<command>& command_registry();

struct command_registration {
  explicit command_registration(command cmd) { command_registry().push_back(cmd); }
};

}  // namespace pagedserve::cli
