#pragma once
// The JSON body a load test POSTs for one request: streaming with usage
// (stream_options.include_usage), max_tokens, temperature, ignore_eos when asked, and any
// extra fields the user gave (merged last, so they can override). Token-id prompts go to
// /v1/completions as a list of ints; chat sends the text as one user message (a token-id
// prompt cannot be sent to chat: that is an error before the run starts).

#include <boost/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "loadtest/core/bench_request.h"
#include "loadtest/core/stream_chunk.h"

namespace pagedserve::loadtest {

struct body_options {
  std::string model;
  api_kind kind = api_kind::completions;
  double temperature = 0.0;
  bool ignore_eos = false;
  std::optional<std::uint64_t> seed;  // sent per request as seed + index when set
  boost::json::object extra;          // merged over the generated fields
};

// Fails, naming the first such request, when a token-id prompt would go to chat (which takes
// text only). Callers check a workload with it before a run; make_request_body and run_load
// treat such a request as a broken precondition and abort.
[[nodiscard]] status check_request_kind(const std::vector<bench_request>& workload, api_kind kind);

[[nodiscard]] std::string make_request_body(const bench_request& request, std::size_t index,
                                            const body_options& options);

}  // namespace pagedserve::loadtest
