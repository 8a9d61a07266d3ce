#pragma once
// What pagedserve-bench prints and writes once a run or a sweep is over: the table (or the
// JSON with --json) on stdout, the JSON in --save-result, the plots in --plot-dir.

#include <boost/json.hpp>
#include <vector>

#include "loadtest/app/bench_args.h"
#include "loadtest/client/load_driver.h"
#include "loadtest/core/report.h"

namespace pagedserve::loadtest {

// The settings of the run (model, endpoint, workload, rate, ...), added to the result JSON.
[[nodiscard]] boost::json::object run_settings(const bench_args& args,
                                               const driver_options& options,
                                               std::size_t num_requests);

// A single run is given as one point. Fails when the JSON file or the plots cannot be written.
[[nodiscard]] status emit_run(const bench_args& args, const sweep_point& point,
                              boost::json::object settings);
[[nodiscard]] status emit_sweep(const bench_args& args, const std::vector<sweep_point>& points,
                                boost::json::object settings);

}  // namespace pagedserve::loadtest
