// pagedserve: one binary, several subcommands (generate, tokenize, simulate, ...).

#include <algorithm>
#include <cstdio>
#include <exception>
#include <string_view>

#include "cli/command.h"
#include "pagedserve_version.h"  // generated: cmake/pagedserve_version.cmake

namespace pagedserve::cli {

std::vector<command>& command_registry() {
  static std::vector<command> registry;
  return registry;
}

namespace {

void print_usage() {
  auto commands = command_registry();
  std::sort(commands.begin(), commands.end(),
            [](const command& a, const command& b) { return a.name < b.name; });
  std::fprintf(stderr,
               "usage: pagedserve <command> [options]\n"
               "       pagedserve --version    print the version and the git commit\n\n"
               "commands:\n");
  for (const command& cmd : commands) {
    std::fprintf(stderr, "  %-16.*s %.*s\n", static_cast<int>(cmd.name.size()), cmd.name.data(),
                 static_cast<int>(cmd.summary.size()), cmd.summary.data());
  }
  std::fprintf(stderr, "\n`pagedserve <command> --help` describes a command's options.\n");
}

// The net below every command: an exception that escapes one (a check that is missing, a
// std::bad_alloc) ends the process with a message and status 1 instead of std::terminate's
// abort. Each class of input that reaches it deserves a real check where it is read.
int run_guarded(const command& cmd, int argc, char** argv) {
  try {
    return cmd.run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "pagedserve %.*s: internal error: %s\n", static_cast<int>(cmd.name.size()),
                 cmd.name.data(), e.what());
  } catch (...) {
    std::fprintf(stderr, "pagedserve %.*s: internal error: unknown exception\n",
                 static_cast<int>(cmd.name.size()), cmd.name.data());
  }
  return 1;
}

}  // namespace
}  // namespace pagedserve::cli

int main(int argc, char** argv) {
  using namespace pagedserve::cli;
  if (argc < 2) {
    print_usage();
    return 2;
  }
  const std::string_view name = argv[1];
  if (name == "--help" || name == "-h" || name == "help") {
    print_usage();
    return 0;
  }
  if (name == "--version") {
    std::printf("pagedserve %s (%s)\n", PAGEDSERVE_VERSION, PAGEDSERVE_GIT_COMMIT);
    return 0;
  }
  for (const command& cmd : command_registry()) {
    if (cmd.name == name) return run_guarded(cmd, argc - 1, argv + 1);
  }
  std::fprintf(stderr, "pagedserve: unknown command '%s'\n\n", argv[1]);
  print_usage();
  return 2;
}
