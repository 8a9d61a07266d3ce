#include "loadtest/client/server_process.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <string_view>
#include <thread>

extern char** environ;

namespace pagedserve::loadtest {
namespace {

constexpr auto poll_interval = std::chrono::milliseconds(20);
constexpr std::size_t num_tail_lines = 12;

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string log_tail(const std::filesystem::path& path) {
  const std::string log = read_file(path);
  std::size_t begin = log.size();
  if (begin > 0 && log[begin - 1] == '\n') --begin;  // the last line's own newline
  for (std::size_t lines = 0; begin > 0; --begin) {
    if (log[begin - 1] == '\n' && ++lines == num_tail_lines) break;
  }
  return log.substr(begin);
}

error start_error(const server_launch& launch, const std::string& what) {
  return make_error(error_code::unavailable, "pagedserve serve (" + launch.binary.string() + ") " +
                                                 what + "; log " + launch.log_path.string() +
                                                 " ends with:\n" + log_tail(launch.log_path));
}

// The URL of the first "listening on http://HOST:PORT" line, once the log has it (the line
// must be complete: a URL cut by a partial write would name the wrong port).
std::optional<server_url> find_listening_url(const std::filesystem::path& log_path) {
  static constexpr std::string_view marker = "listening on http://";
  const std::string log = read_file(log_path);
  const std::size_t at = log.find(marker);
  if (at == std::string::npos) return std::nullopt;
  const std::size_t begin = at + std::string_view("listening on ").size();
  const std::size_t end = log.find_first_of(" \t\r\n", begin);
  if (end == std::string::npos) return std::nullopt;
  auto url = parse_server_url(std::string_view(log).substr(begin, end - begin));
  if (!url) return std::nullopt;
  return *url;
}

std::vector<std::string> child_argv(const server_launch& launch) {
  std::vector<std::string> argv = {launch.binary.string(), "serve", "--config",
                                   launch.config.string()};
  for (const auto& [flag, value] : launch.overrides) {
    argv.push_back("--" + flag);
    argv.push_back(value);
  }
  // Last, so that no override can move the server off a free port.
  argv.emplace_back("--port");
  argv.emplace_back("0");
  return argv;
}

result<pid_t> spawn_child(const server_launch& launch) {
  const int log_fd =
      ::open(launch.log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (log_fd < 0) {
    return make_error(
        error_code::io_error,
        "cannot open the server log " + launch.log_path.string() + ": " + std::strerror(errno));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, log_fd, STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, log_fd, STDERR_FILENO);
  std::vector<std::string> args = child_argv(launch);
  std::vector<char*> argv;
  for (auto& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(log_fd);
  if (rc != 0) {
    return make_error(error_code::io_error,
                      "cannot run " + launch.binary.string() + ": " + std::strerror(rc));
  }
  return pid;
}

// Waits up to `timeout` for the child to exit; its wait status, or nullopt if it still runs.
std::optional<int> wait_for_exit(pid_t pid, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    int wait_status = 0;
    const pid_t done = ::waitpid(pid, &wait_status, WNOHANG);
    if (done == pid) return wait_status;
    if (done < 0 && errno != EINTR) return 0;  // not our child any more: nothing to wait for
    if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
    std::this_thread::sleep_for(poll_interval);
  }
}

void kill_and_reap(pid_t pid) {
  ::kill(pid, SIGKILL);
  (void)wait_for_exit(pid, std::chrono::seconds(10));
}

}  // namespace

result<server_process> server_process::start(const server_launch& launch) {
  auto pid = spawn_child(launch);
  if (!pid) return pid.err();
  const auto deadline = std::chrono::steady_clock::now() + launch.start_timeout;
  for (;;) {
    if (auto url = find_listening_url(launch.log_path)) return server_process(*pid, *url);
    if (auto exited = wait_for_exit(*pid, std::chrono::milliseconds(0))) {
      const int code = WIFEXITED(*exited) ? WEXITSTATUS(*exited) : -1;
      return start_error(launch,
                         "exited with status " + std::to_string(code) + " before listening");
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      kill_and_reap(*pid);
      return start_error(launch, "did not say where it listens within " +
                                     std::to_string(launch.start_timeout.count()) + " s");
    }
    std::this_thread::sleep_for(poll_interval);
  }
}

server_process::server_process(pid_t pid, server_url url) : pid_(pid), url_(std::move(url)) {}

server_process::server_process(server_process&& other) noexcept
    : pid_(std::exchange(other.pid_, -1)), url_(std::move(other.url_)) {}

server_process& server_process::operator=(server_process&& other) noexcept {
  if (this != &other) {
    stop();
    pid_ = std::exchange(other.pid_, -1);
    url_ = std::move(other.url_);
  }
  return *this;
}

server_process::~server_process() { stop(); }

int server_process::stop(std::chrono::seconds timeout) {
  if (pid_ < 0) return -1;
  const pid_t pid = std::exchange(pid_, -1);
  ::kill(pid, SIGTERM);
  std::optional<int> wait_status = wait_for_exit(pid, timeout);
  if (!wait_status) {
    kill_and_reap(pid);
    return -1;
  }
  return WIFEXITED(*wait_status) ? WEXITSTATUS(*wait_status) : -1;
}

}  // namespace pagedserve::loadtest
