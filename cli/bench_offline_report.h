#pragma once
// bench_offline_report: what `pagedserve bench offline` (cmd_bench.cpp) makes of one engine
// run: the figures derived from the workload, the wall time and the engine's statistics
// (throughput, step statistics, host and device time per step), the reference figures
// given with --peer, and the two ways they are printed (a table, JSON objects).
// docs/bench-offline.md explains each figure.

#include <boost/json.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/engine_stats.h"
#include "common/result.h"
#include "sim/static_batch_baseline.h"
#include "sim/workload.h"

namespace pagedserve::cli {

using sim::static_baseline_report;

// A reference throughput printed beside the measured one (--peer NAME=TOKENS_PER_S).
struct peer_figure {
  std::string name;
  double output_tokens_per_s = 0.0;
};

// NAME=TOKENS_PER_S, split at the last '=': a non-empty name and a finite number above 0.
// The error quotes the text and says what form is expected.
[[nodiscard]] result<peer_figure> parse_peer(std::string_view text);

struct offline_figures {
  std::uint64_t num_requests = 0;
  std::uint64_t prompt_tokens = 0;
  std::uint64_t output_tokens = 0;
  double wall_s = 0.0;
  double output_tokens_per_s = 0.0;
  double total_tokens_per_s = 0.0;
  double mean_batch_size = 0.0;
  double kv_utilization = 0.0;
  double executor_idle_fraction = 0.0;
  double prefix_cache_hit_rate = 0.0;
  // Per step: executor host work (not waiting for the device), and device time from CUDA
  // events. The device figures are nullopt where the backend keeps no device clock (the
  // CPU: device_idle_s and device_busy_s are both 0).
  double host_ms_per_step = 0.0;
  std::optional<double> device_ms_per_step;
  std::optional<double> device_idle_fraction;
};

[[nodiscard]] offline_figures engine_figures(double wall_s, const engine_stats& stats,
                                             const std::vector<sim::workload_request>& reqs);

// a / b, 0 where b is not positive.
[[nodiscard]] double ratio(double a, double b);

// The "engine" object, the "peers" array and the "static" object of the JSON output.
[[nodiscard]] boost::json::object to_json(const offline_figures& f, const engine_stats& stats,
                                          std::uint64_t num_leaked_blocks);
[[nodiscard]] boost::json::array to_json(const std::vector<peer_figure>& peers,
                                         const offline_figures& f);
[[nodiscard]] boost::json::object to_json(const static_baseline_report& r);

// The text output; `config` is the "config" object of the JSON output.
void print_table(const boost::json::object& config, const offline_figures& f,
                 const engine_stats& stats, const std::vector<peer_figure>& peers,
                 const std::optional<static_baseline_report>& fixed);

}  // namespace pagedserve::cli
