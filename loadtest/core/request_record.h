#pragma once
// request_record: what the client saw of one request. Times are seconds on the client's
// steady clock; `start_s` is from the run's start, the others from the request's own start
// (taken just before connecting, as vLLM takes it before the POST).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace pagedserve::loadtest {

enum class failure_kind {
  none,          // succeeded: [DONE] was received
  connect,       // resolve or connect failed
  http_status,   // a status other than 200; `error` carries the body's message
  stream_error,  // the stream carried an error object
  disconnected,  // the connection ended before [DONE]
  timeout,       // no byte for read_timeout_s, or the whole request over request_timeout_s
  bad_response,  // a chunk was not the JSON an OpenAI server sends
};

[[nodiscard]] std::string_view to_string(failure_kind kind);

struct request_record {
  std::size_t index = 0;  // position in the workload
  double start_s = 0.0;
  failure_kind failure = failure_kind::none;
  int http_status = 0;  // 0 when no status line was received
  std::string error;    // empty on success
  // Arrival of the first chunk carrying tokens (stream_chunk::num_token_choices); 0 when none
  // came (then the request has no TTFT, TPOT or ITL: a server that sent its whole output in
  // the final chunk tells nothing about when tokens were made).
  double ttft_s = 0.0;
  double e2e_s = 0.0;  // until [DONE] or the failure
  // Every gap between successive token-carrying chunks (size = chunks - 1).
  std::vector<double> itl_s;
  std::uint64_t prompt_tokens = 0;  // usage.prompt_tokens, else the ids sent
  std::uint64_t output_tokens = 0;  // usage.completion_tokens, else token choices counted
  bool usage_reported = false;      // counts come from the server's usage object
  std::uint64_t num_token_chunks = 0;

  [[nodiscard]] bool ok() const { return failure == failure_kind::none; }
};

}  // namespace pagedserve::loadtest
