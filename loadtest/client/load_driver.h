#pragma once
// The load driver (Boost.Beast, one io_context on one thread): sends each request of a
// workload at its arrival time (loadtest/core/arrivals.h), at most max_concurrency at once
// (later arrivals wait for a free slot, as vLLM's semaphore does), over a fresh TCP
// connection each (TCP_NODELAY), streams the SSE response and timestamps every chunk the
// moment its bytes are read. Warm-up requests (the first workload requests, cycled) run
// first, one at a time, and are left out of the records. No request is ever dropped: each
// ends as a request_record, failed or not. The host is resolved once per run; requests due
// at once are started one by one, each once the previous one's bytes are sent, so no
// request's TTFT includes the others' connection set-up. A workload with token-id prompts
// for the chat route is a broken precondition (run_load aborts): check_request_kind first.

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "loadtest/core/arrivals.h"
#include "loadtest/core/bench_request.h"
#include "loadtest/core/request_body.h"
#include "loadtest/core/request_record.h"
#include "loadtest/core/server_url.h"

namespace pagedserve::loadtest {

struct driver_options {
  server_url server;
  std::string path = "/v1/completions";  // or /v1/chat/completions
  std::optional<std::string> api_key;    // "Authorization: Bearer <key>"
  body_options body;                     // body.kind follows `path`
  arrival_spec arrivals;
  std::size_t max_concurrency = 0;  // 0: unlimited
  std::size_t num_warmups = 0;
  // Warm-ups cycle through these; through the workload when empty (then the first measured
  // requests may find their prompts in the server's prefix cache).
  std::vector<bench_request> warmup_requests;
  std::uint64_t seed = 0;            // arrival times
  double request_timeout_s = 600.0;  // whole request
  double read_timeout_s = 120.0;     // no byte for this long = timeout
  double connect_timeout_s = 10.0;
};

struct run_result {
  std::vector<request_record> records;  // one per workload request, in workload order
  double duration_s = 0.0;              // first send to last record
  // What the records' start_s count from, on the steady clock (to line them up with other
  // timestamps taken in the same process, e.g. a server's).
  std::chrono::steady_clock::time_point run_start;
};

// Called on the driver's thread after each measured request ends (not for warm-ups).
using progress_callback = std::function<void(std::size_t done, std::size_t failed)>;

[[nodiscard]] run_result run_load(const std::vector<bench_request>& workload,
                                  const driver_options& options,
                                  const progress_callback& on_progress = {});

// GET /v1/models and return the first model's id (what vLLM's bench does without --model).
[[nodiscard]] result<std::string> fetch_first_model_id(const server_url& server,
                                                       const std::optional<std::string>& api_key,
                                                       double timeout_s);

}  // namespace pagedserve::loadtest
