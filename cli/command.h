#pragma once
// Subcommands of the `pagedserve` binary. Each command lives in its own cmd_*.cpp file and
// registers itself with a static `command_registration`; main() dispatches on argv[1].

#include <string_view>
#include <vector>

#include "common/result.h"

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

// The exit status of a failure: 2 when the input is at fault (a bad flag, a missing,
// malformed, inconsistent or unsupported model folder), 1 when the system is (I/O, a bug).
[[nodiscard]] inline int exit_status_for(error_code code) {
  switch (code) {
    case error_code::invalid_argument:
    case error_code::not_found:
    case error_code::unsupported:
    case error_code::corrupt_data:
    case error_code::capacity_exceeded:
      return 2;
    default:
      return 1;
  }
}

}  // namespace pagedserve::cli
