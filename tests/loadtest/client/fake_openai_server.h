#pragma once
// fake_openai_server: a test fixture that streams OpenAI-shaped SSE with known delays, on its
// own POSIX sockets (independent of our net/http server). Listens on 127.0.0.1, port 0, with a
// pool of workers, each serving one connection at a time.
// Each POST /v1/completions or /v1/chat/completions gets max_tokens chunks of one token
// ("tok ") each: the first at receipt (the kernel's receive time) + ttft_delay, the k-th at receipt
// + ttft + k * itl_delay (deadlines, so sleep jitter never accumulates), each written as its own
// HTTP chunk; then a usage chunk when stream_options.include_usage was asked (unless omit_usage),
// then "data: [DONE]". GET /v1/models lists "fake-model" first. Failures are chosen by the prompt
// text:
//   fail:status        500 with an OpenAI error body
//   fail:disconnect    the connection closes after 3 token chunks
//   fail:hang          the header, then nothing until the client closes
//   fail:stream_error  one token chunk, then an error object as a data event
//   fail:garbage       one token chunk, then a data event that is not JSON

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "loadtest/core/server_url.h"

namespace pagedserve::loadtest::testing {

struct fake_server_options {
  std::chrono::microseconds ttft_delay{40000};
  std::chrono::microseconds itl_delay{8000};
  bool omit_usage = false;
  std::size_t num_workers = 16;  // connections served at once (more wait in the backlog)
};

// What the server did for one request.
struct served_request {
  std::string path;
  std::string prompt;              // the text prompt or chat content; empty for token ids
  std::size_t num_prompt_ids = 0;  // for token ids
  // When the request's first bytes reached the kernel (SO_TIMESTAMPNS), else when read.
  std::chrono::steady_clock::time_point receipt;
  std::vector<std::chrono::steady_clock::time_point> token_send_times;
};

class fake_openai_server {
 public:
  explicit fake_openai_server(fake_server_options options);
  ~fake_openai_server();
  fake_openai_server(const fake_openai_server&) = delete;
  fake_openai_server& operator=(const fake_openai_server&) = delete;

  [[nodiscard]] server_url url() const;
  // Closes the listener, shuts every open connection down and joins all threads.
  void stop();

  [[nodiscard]] std::size_t peak_concurrency() const { return peak_in_flight_.load(); }
  [[nodiscard]] std::vector<served_request> served() const;

 private:
  void accept_loop();
  void serve(int fd);
  void note_started();
  void note_finished();

  fake_server_options options_;
  int listen_fd_ = -1;
  std::uint16_t port_ = 0;
  std::atomic<bool> stopping_{false};
  std::vector<std::thread> workers_;
  mutable std::mutex mutex_;  // guards the members below
  std::vector<int> open_fds_;
  std::vector<served_request> served_;
  std::atomic<std::size_t> in_flight_{0};
  std::atomic<std::size_t> peak_in_flight_{0};
};

}  // namespace pagedserve::loadtest::testing
