#pragma once
// A sweep: the same workload run once per setting, each run a sweep_point. Over request rates
// against a running server, or over one server config key (max_num_seqs,
// gpu_memory_utilization, ...) when the sweep starts `pagedserve serve` itself for each value
// (a fresh server per point, so no point inherits another's cache or queue).

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "loadtest/client/load_driver.h"
#include "loadtest/client/server_process.h"
#include "loadtest/core/report.h"
#include "loadtest/core/summary.h"

namespace pagedserve::loadtest {

struct sweep_spec {
  // Empty: sweep request rates ("inf" allowed) against options.server.
  // Otherwise a server config key (snake_case, as in the YAML): one server per value.
  std::string server_key;
  std::vector<std::string> values;
  server_launch launch;  // used when server_key is set (its overrides get --<key> <value>)
  // Rate sweeps: point i > 0 runs on fresh_workload(i) when set — new prompts from the same
  // distributions — because one server serves every point and its prefix cache would hand
  // later points the prompts of earlier ones (prefill skipped, TTFT understated). Unset (a
  // JSONL file): every point sends the same requests. Server sweeps start a fresh server per
  // point and always send the same requests.
  std::function<result<std::vector<bench_request>>(std::size_t point)> fresh_workload;
  // With server_key set and options.body.model empty, each point's model is the first one
  // its server lists (fetch_first_model_id).
};

// A request rate as given on a command line: a positive number, or "inf" (all at once).
[[nodiscard]] result<double> parse_request_rate(std::string_view text);

// A point from one run: its summary and the TTFT and ITL values (ms) of completed requests.
[[nodiscard]] sweep_point make_sweep_point(std::string x_label, std::string x_value,
                                           const run_result& run, const slo_spec& slo);

// Called before each point with its label ("request_rate=4"), e.g. to reset a progress bar.
using point_callback = std::function<void(const std::string& label, std::size_t num_requests)>;

// Fails on a bad value (rate not a positive number or "inf") or a server that does not start;
// request failures inside a point are part of its summary, never a sweep error.
[[nodiscard]] result<std::vector<sweep_point>> run_sweep(const std::vector<bench_request>& workload,
                                                         const driver_options& options,
                                                         const sweep_spec& spec,
                                                         const slo_spec& slo,
                                                         const point_callback& on_point = {},
                                                         const progress_callback& on_progress = {});

}  // namespace pagedserve::loadtest
