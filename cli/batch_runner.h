#pragma once
// batch_runner: `pagedserve run-batch`'s engine side. It reads an OpenAI batch file
// (net/openai/batch_file.h) line by line, keeps up to max_in_flight lines submitted (under
// the engine's waiting-queue limit, so the engine never refuses one as overloaded, and
// enough to keep every step full), feeds each line's events to the same builders the
// server uses (on the engine's threads, under one lock), and writes one output line per
// input line, in input order, as soon as the lines before it are written. A line that
// fails is answered in its output line; the file goes on.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <istream>
#include <ostream>

#include "api/engine_client.h"
#include "net/openai/api_request.h"

namespace pagedserve::cli {

struct batch_totals {
  std::size_t lines_done = 0;
  std::size_t lines_failed = 0;  // answered with an error (refused, malformed, failed)
  std::uint64_t output_tokens = 0;
  double wall_s = 0.0;
};

class batch_runner {
 public:
  batch_runner(engine_client& eng, const net::model_context& model, std::size_t max_in_flight);
  ~batch_runner();
  batch_runner(const batch_runner&) = delete;
  batch_runner& operator=(const batch_runner&) = delete;

  // Runs every line of `in`; `progress` is called about twice a second with the totals so far.
  batch_totals run(std::istream& in, std::ostream& out,
                   const std::function<void(const batch_totals&)>& progress);

 private:
  struct state;
  std::unique_ptr<state> state_;
};

}  // namespace pagedserve::cli
