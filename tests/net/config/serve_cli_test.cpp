// `pagedserve serve` as a user runs it: --help, configuration errors (exit 2, naming the
// flag or key), and a real start on a free port that stops cleanly on SIGTERM.

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <filesystem>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/net/config/temp_file.h"
#include "tests/support/cli_runner.h"

namespace pagedserve::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(ServeCli, HelpListsTheFlags) {
  const cli_result r = run_pagedserve("serve --help");
  EXPECT_EQ(r.exit_status, 0);
  EXPECT_THAT(r.out, HasSubstr("--max-num-seqs"));
  EXPECT_THAT(r.out, HasSubstr("--config FILE"));
}

TEST(ServeCli, BadFlagValueExitsWithTwoNamingTheFlag) {
  const cli_result r = run_pagedserve("serve --max-num-seqs 0 2>&1");
  EXPECT_EQ(r.exit_status, 2);
  EXPECT_THAT(r.out, HasSubstr("--max-num-seqs: max_num_seqs: must be at least 1, got '0'"));
}

TEST(ServeCli, BadConfigFileExitsWithTwoNamingTheKey) {
  temp_file file("serve.yaml", "port: 8000\nblock_sise: 16\n");
  const cli_result r = run_pagedserve("serve --config '" + file.path().string() + "' 2>&1");
  EXPECT_EQ(r.exit_status, 2);
  EXPECT_THAT(r.out, HasSubstr("unknown key 'block_sise'"));
  EXPECT_THAT(r.out, HasSubstr("did you mean 'block_size'?"));
}

// Starts the server with its output on a pipe, reads until it says where it listens (or
// the deadline passes), then stops it with SIGTERM.
struct started_server {
  std::string output;
  bool listening = false;
  int exit_status = -1;
};

started_server start_and_stop(const std::string& args) {
  const std::string binary = (pagedserve::testing::binary_dir() / "bin" / "pagedserve").string();
  const std::string command = "exec '" + binary + "' " + args + " 2>&1";
  std::array<int, 2> fds{};
  started_server result;
  if (::pipe(fds.data()) != 0) return result;
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(fds[1], STDOUT_FILENO);
    ::close(fds[0]);
    ::execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(fds[1]);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (!result.listening && std::chrono::steady_clock::now() < deadline) {
    pollfd p{fds[0], POLLIN, 0};
    if (::poll(&p, 1, 1000) <= 0) continue;
    std::array<char, 4096> buffer{};
    const ssize_t n = ::read(fds[0], buffer.data(), buffer.size());
    if (n <= 0) break;  // the server exited
    result.output.append(buffer.data(), static_cast<std::size_t>(n));
    result.listening = result.output.find("listening on http://") != std::string::npos;
  }
  ::kill(pid, SIGTERM);
  std::array<char, 4096> buffer{};
  for (ssize_t n; (n = ::read(fds[0], buffer.data(), buffer.size())) > 0;) {
    result.output.append(buffer.data(), static_cast<std::size_t>(n));
  }
  ::close(fds[0]);
  int raw = 0;
  ::waitpid(pid, &raw, 0);
  result.exit_status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return result;
}

TEST(ServeCli, StartsTheDemoModelOnAFreePortAndStopsOnSigterm) {
  const started_server s = start_and_stop("serve --port 0 --max-model-len 256 --max-num-seqs 4");
  ASSERT_TRUE(s.listening) << s.output;
  EXPECT_THAT(s.output, HasSubstr("pagedserve-demo"));
  EXPECT_THAT(s.output, HasSubstr("--model /path/to/hf-checkpoint-folder"));
  EXPECT_THAT(s.output, Not(HasSubstr("listening on http://127.0.0.1:0\n")));
  EXPECT_EQ(s.exit_status, 0) << s.output;
}

TEST(ServeCli, WarnsThatCudaSettingsAreIgnoredOnCpu) {
  const started_server s = start_and_stop(
      "serve --port 0 --max-model-len 256 --max-num-seqs 4 --dtype float32 "
      "--gpu-memory-utilization 0.5 --enforce-eager");
  ASSERT_TRUE(s.listening) << s.output;
  EXPECT_THAT(s.output, Not(HasSubstr("dtype float32 is ignored")));
  EXPECT_THAT(s.output, HasSubstr("gpu_memory_utilization is ignored by the cpu backend"));
  EXPECT_THAT(s.output, HasSubstr("enforce_eager is ignored by the cpu backend"));
  EXPECT_EQ(s.exit_status, 0) << s.output;
}

TEST(ServeCli, CpuBackendRefusesA16BitDtype) {
  const started_server s = start_and_stop("serve --port 0 --max-model-len 256 --dtype bfloat16");
  EXPECT_FALSE(s.listening) << s.output;
  EXPECT_THAT(s.output, HasSubstr("dtype 'bfloat16' needs backend cuda"));
  EXPECT_EQ(s.exit_status, 2) << s.output;  // a configuration error, found before loading
}

}  // namespace
}  // namespace pagedserve::testing
