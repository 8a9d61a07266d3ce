#include "loadtest/client/sweep.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

namespace pagedserve::loadtest {
namespace {

constexpr double model_lookup_timeout_s = 30.0;

std::string flag_of_key(std::string key) {
  std::replace(key.begin(), key.end(), '_', '-');
  return key;
}

// Runs one point against a server started for it, stopping the server afterwards.
result<run_result> run_on_own_server(const std::vector<bench_request>& workload,
                                     driver_options options, const sweep_spec& spec,
                                     const std::string& value,
                                     const progress_callback& on_progress) {
  server_launch launch = spec.launch;
  launch.overrides.emplace_back(flag_of_key(spec.server_key), value);
  auto server = server_process::start(launch);
  if (!server) {
    return make_error(server.err().code,
                      spec.server_key + "=" + value + ": " + server.err().message);
  }
  options.server = server->url();
  if (options.body.model.empty()) {
    auto model = fetch_first_model_id(options.server, options.api_key, model_lookup_timeout_s);
    if (!model) {
      return make_error(model.err().code, spec.server_key + "=" + value +
                                              ": cannot learn the model: " + model.err().message);
    }
    options.body.model = *model;
  }
  run_result run = run_load(workload, options, on_progress);
  server->stop();
  return run;
}

}  // namespace

sweep_point make_sweep_point(std::string x_label, std::string x_value, const run_result& run,
                             const slo_spec& slo) {
  sweep_point point;
  point.x_label = std::move(x_label);
  point.x_value = std::move(x_value);
  // A run whose requests all failed at once can measure 0 s; summarize_run needs > 0.
  point.summary = summarize_run(run.records, std::max(run.duration_s, 1e-9), slo);
  for (const request_record& record : run.records) {
    if (!record.ok() || record.num_token_chunks == 0) continue;  // no token timing
    point.ttft_ms.push_back(record.ttft_s * 1000.0);
    for (const double gap : record.itl_s) point.itl_ms.push_back(gap * 1000.0);
  }
  return point;
}

result<double> parse_request_rate(std::string_view text) {
  if (text == "inf" || text == "infinity") return std::numeric_limits<double>::infinity();
  double rate = 0.0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), rate);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(rate) ||
      rate <= 0.0) {
    return make_error(error_code::invalid_argument,
                      "request rate '" + std::string(text) +
                          "' is not a positive number of requests per second or 'inf'");
  }
  return rate;
}

result<std::vector<sweep_point>> run_sweep(const std::vector<bench_request>& workload,
                                           const driver_options& options, const sweep_spec& spec,
                                           const slo_spec& slo, const point_callback& on_point,
                                           const progress_callback& on_progress) {
  if (spec.values.empty()) {
    return make_error(error_code::invalid_argument, "a sweep needs at least one value");
  }
  const bool over_rates = spec.server_key.empty();
  std::vector<double> rates;
  if (over_rates) {
    for (const std::string& value : spec.values) {
      auto rate = parse_request_rate(value);
      if (!rate) return rate.err();
      rates.push_back(*rate);
    }
  }
  const std::string x_label = over_rates ? "request_rate" : spec.server_key;
  std::vector<sweep_point> points;
  for (std::size_t i = 0; i < spec.values.size(); ++i) {
    const std::string& value = spec.values[i];
    if (on_point) on_point(x_label + "=" + value, workload.size());  // fresh ones: same size
    if (over_rates) {
      driver_options point_options = options;
      point_options.arrivals.request_rate = rates[i];
      std::vector<bench_request> fresh;
      if (i > 0 && spec.fresh_workload) {
        auto made = spec.fresh_workload(i);
        if (!made) return made.err();
        fresh = std::move(*made);
      }
      const run_result run = run_load(fresh.empty() ? workload : fresh, point_options, on_progress);
      points.push_back(make_sweep_point(x_label, value, run, slo));
      continue;
    }
    auto run = run_on_own_server(workload, options, spec, value, on_progress);
    if (!run) return run.err();
    points.push_back(make_sweep_point(x_label, value, *run, slo));
  }
  return points;
}

}  // namespace pagedserve::loadtest
