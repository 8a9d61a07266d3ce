#include "loadtest/app/bench_output.h"

#include <cmath>
#include <cstdio>
#include <fstream>

#include "loadtest/core/plots.h"

namespace pagedserve::loadtest {
namespace {

// Keys the report already has win: the settings only fill in.
void add_settings(boost::json::object& result, const boost::json::object& settings) {
  for (const auto& [key, value] : settings) result.emplace(key, value);
}

status write_outputs(const bench_args& args, const boost::json::object& result,
                     const std::string& table, const std::vector<sweep_point>& points) {
  const std::string json_text = boost::json::serialize(result);
  if (args.json) {
    std::printf("%s\n", json_text.c_str());
  } else {
    std::fputs(table.c_str(), stdout);
  }
  std::fflush(stdout);
  if (args.save_result) {
    std::ofstream out(*args.save_result);
    out << json_text << '\n';
    if (!out) {
      return make_error(error_code::io_error, "cannot write --save-result " + *args.save_result);
    }
  }
  if (args.plot_dir) {
    std::error_code ec;
    std::filesystem::create_directories(*args.plot_dir, ec);
    auto plots = draw_plots(*args.plot_dir, points, args.plot_title);
    if (!plots) return plots.err();
  }
  return status::success();
}

}  // namespace

boost::json::object run_settings(const bench_args& args, const driver_options& options,
                                 std::size_t num_requests) {
  boost::json::object settings;
  settings["model_id"] = options.body.model;
  settings["base_url"] = options.server.to_string();
  settings["endpoint"] = options.path;
  settings["dataset_name"] = args.dataset_name;
  settings["num_prompts"] = num_requests;
  const double rate = options.arrivals.request_rate;
  settings["request_rate"] =
      std::isinf(rate) ? boost::json::value("inf") : boost::json::value(rate);
  settings["burstiness"] = options.arrivals.burstiness;
  if (options.max_concurrency > 0) {
    settings["max_concurrency"] = options.max_concurrency;
  } else {
    settings["max_concurrency"] = nullptr;
  }
  settings["num_warmups"] = options.num_warmups;
  settings["seed"] = args.seed;
  return settings;
}

status emit_run(const bench_args& args, const sweep_point& point, boost::json::object settings) {
  boost::json::object result = to_json(point.summary);
  add_settings(result, settings);
  const std::string table = format_summary_table(point.summary, "Serving Benchmark Result");
  return write_outputs(args, result, table, {point});
}

status emit_sweep(const bench_args& args, const std::vector<sweep_point>& points,
                  boost::json::object settings) {
  boost::json::object result = sweep_to_json(points);
  // In a rate sweep each point has its own rate.
  if (!points.empty() && points.front().x_label == "request_rate") settings.erase("request_rate");
  add_settings(result, settings);
  std::string table = format_sweep_table(points);
  for (const sweep_point& point : points) {
    std::string title = point.x_label;
    title.append("=").append(point.x_value);
    table.append("\n").append(format_summary_table(point.summary, title));
  }
  return write_outputs(args, result, table, points);
}

}  // namespace pagedserve::loadtest
