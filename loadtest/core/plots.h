#pragma once
// PNG plots of a sweep, drawn by gnuplot (Debian's gnuplot-nox, pngcairo terminal): the data
// and the .gp scripts are written beside the PNGs so a plot can be redrawn or restyled.
//   <dir>/sweep.png  output tokens/s (x) against median and p99 TTFT and ITL (y), one point a
//                    setting, labelled with it — the throughput-versus-latency curve;
//   <dir>/ttft.png   TTFT distribution (empirical CDF), one line per setting;
//   <dir>/itl.png    ITL distribution (empirical CDF), one line per setting.

#include <filesystem>
#include <string>
#include <vector>

#include "common/result.h"
#include "loadtest/core/report.h"

namespace pagedserve::loadtest {

// Writes the data and scripts; `title` goes on every plot.
[[nodiscard]] result<std::vector<std::filesystem::path>> write_plot_scripts(
    const std::filesystem::path& dir, const std::vector<sweep_point>& points,
    const std::string& title);

// write_plot_scripts, then runs `gnuplot` on each script. A missing gnuplot is an error that
// says which package to install; the scripts stay.
[[nodiscard]] result<std::vector<std::filesystem::path>> draw_plots(
    const std::filesystem::path& dir, const std::vector<sweep_point>& points,
    const std::string& title);

}  // namespace pagedserve::loadtest
