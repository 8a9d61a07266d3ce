#pragma once
// server_process: `pagedserve serve --config F [--key value ...] --port 0` started as a child
// process for a sweep over server settings. start() waits for its "listening on
// http://HOST:PORT" log line in the child's output (stdout and stderr both go to log_path, which
// start() polls, so no pipe can fill and stall the child) and returns the URL; the destructor
// (or stop()) sends SIGTERM, waits up to the timeout, then SIGKILL. A child that exits or
// stays silent past start_timeout is an error quoting the log's last lines.

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "common/result.h"
#include "loadtest/core/server_url.h"

namespace pagedserve::loadtest {

struct server_launch {
  std::filesystem::path binary;  // the pagedserve binary
  std::filesystem::path config;  // its YAML config
  // Flags after the config, e.g. {"max-num-seqs", "16"} -> --max-num-seqs 16.
  std::vector<std::pair<std::string, std::string>> overrides;
  std::filesystem::path log_path;  // the child's stdout + stderr (truncated at start)
  std::chrono::seconds start_timeout{120};
};

class server_process {
 public:
  [[nodiscard]] static result<server_process> start(const server_launch& launch);
  server_process(server_process&& other) noexcept;
  server_process& operator=(server_process&& other) noexcept;
  server_process(const server_process&) = delete;
  server_process& operator=(const server_process&) = delete;
  ~server_process();

  [[nodiscard]] const server_url& url() const { return url_; }
  // SIGTERM, wait up to `timeout`, SIGKILL; returns the exit status (-1 when killed).
  int stop(std::chrono::seconds timeout = std::chrono::seconds(30));

 private:
  server_process(pid_t pid, server_url url);
  pid_t pid_ = -1;  // -1 once stopped or moved from
  server_url url_;
};

}  // namespace pagedserve::loadtest
