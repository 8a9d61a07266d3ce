#pragma once
// One request of a load test as an asynchronous Beast exchange: connect (a fresh
// connection, TCP_NODELAY), POST the body, read the header, then read the SSE body as it
// arrives. Every read takes one timestamp, applied to each event that read completed: the
// first text-carrying chunk gives the TTFT, later ones the ITL gaps. The request ends at
// [DONE] or at its first failure, and always ends as exactly one request_record.

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>

#include "loadtest/core/bench_request.h"
#include "loadtest/core/request_record.h"
#include "loadtest/core/server_url.h"
#include "loadtest/core/stream_chunk.h"

namespace pagedserve::loadtest {

using session_clock = std::chrono::steady_clock;

// Where and how every request of a run is sent; outlives the run's io_context.
struct request_target {
  server_url server;
  std::string path;
  std::optional<std::string> api_key;
  api_kind kind = api_kind::completions;
  double request_timeout_s = 600.0;
  double read_timeout_s = 120.0;
  double connect_timeout_s = 10.0;
  // Resolved once per run, as a client's DNS cache would; when resolution failed, empty and
  // every request fails to connect with resolve_error.
  boost::asio::ip::tcp::resolver::results_type endpoints;
  std::string resolve_error;
};

// Fills target.endpoints (or target.resolve_error) from target.server.
void resolve_target(request_target& target);

using record_handler = std::function<void(request_record)>;

// The two moments a caller hears of: `sent` once the request's bytes are on the wire (or it
// failed before that), then `done` with the record. Each is called once, from io's thread,
// never from inside start_request, and `sent` always before `done`.
struct request_callbacks {
  std::function<void()> sent;
  record_handler done;
};

// Starts the request now (its start is taken here, before connecting). start_s counts from
// `run_start`.
void start_request(boost::asio::io_context& io, const request_target& target,
                   const bench_request& request, std::size_t index, std::string body,
                   session_clock::time_point run_start, request_callbacks callbacks);

}  // namespace pagedserve::loadtest
