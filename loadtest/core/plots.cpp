#include "loadtest/core/plots.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <system_error>

extern char** environ;  // NOLINT: POSIX declares it for posix_spawn's callers

namespace pagedserve::loadtest {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view terminal = "set terminal pngcairo noenhanced size 1000,600\n";

// A gnuplot single-quoted string: no escapes inside except '' for a quote.
std::string gp_string(std::string_view s) {
  std::string out = "'";
  for (char c : s) {
    out += c == '\'' ? std::string("''") : std::string(1, c);
  }
  return out + "'";
}

// A data-file string column: double-quoted, so it holds spaces; quotes become primes.
std::string data_label(std::string s) {
  std::replace(s.begin(), s.end(), '"', '\'');
  return "\"" + s + "\"";
}

status write_file(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) {
    return make_error(error_code::io_error, "cannot write " + path.string());
  }
  return {};
}

bool has_completed(const sweep_point& p) { return p.summary.completed > 0; }

// Settings where nothing completed have no latencies: they stay out of the curve (as
// comments) instead of sitting at (0, 0).
std::string sweep_data(const std::vector<sweep_point>& points) {
  std::ostringstream out;
  out << "# setting output_tok_s median_ttft_ms p99_ttft_ms median_itl_ms p99_itl_ms\n";
  for (const auto& p : points) {
    const run_summary& s = p.summary;
    if (!has_completed(p)) {
      out << "# " << p.x_label << '=' << p.x_value << ": no completed requests\n";
      continue;
    }
    out << data_label(p.x_value) << ' ' << s.output_throughput << ' ' << s.ttft_ms.median << ' '
        << s.ttft_ms.p99 << ' ' << s.itl_ms.median << ' ' << s.itl_ms.p99 << '\n';
  }
  return out.str();
}

// Two panels over the same x (output tokens/s): TTFT above, ITL below, points labelled with
// their setting and joined in sweep order.
std::string sweep_script(const fs::path& data, const fs::path& png, const std::string& title,
                         const std::string& x_label, bool any_completed) {
  const std::string d = gp_string(data.string());
  const auto panel = [&](const std::string& name, int median_col, int p99_col) {
    const std::string m = std::to_string(median_col);
    const std::string p = std::to_string(p99_col);
    const std::string plots =
        any_completed
            ? d + " using 2:" + m + " with linespoints pt 7 title 'median " + name + "', " + d +
                  " using 2:" + p + " with linespoints pt 5 title 'p99 " + name + "', " + d +
                  " using 2:" + p + ":(stringcolumn(1)) with labels offset 0,0.8 notitle"
            : "[0:1] -1 title 'no completed requests'";
    return "set ylabel '" + name + " (ms)'\nplot " + plots + "\n";
  };
  return std::string(terminal) + "set output " + gp_string(png.string()) + "\n" +
         "set multiplot layout 2,1 title " +
         gp_string(title + ": latency against throughput (points: " + x_label + ")") +
         "\nset grid\nset key top left\nset xlabel 'output tokens/s'\n"
         "set offsets graph 0.05, graph 0.05, graph 0.2, 0\nset yrange [0:*]\n" +
         panel("TTFT", 3, 4) + panel("ITL", 5, 6) + "unset multiplot\n";
}

// Empirical CDF blocks, one per point that has values (gnuplot's `index` counts blocks); each
// starts at 0 so its step rises from the axis.
std::string cdf_data(const std::vector<sweep_point>& points,
                     std::vector<double> sweep_point::*values) {
  std::ostringstream out;
  for (const auto& p : points) {
    std::vector<double> v = p.*values;
    if (v.empty()) {
      continue;
    }
    std::sort(v.begin(), v.end());
    out << "# " << p.x_label << '=' << p.x_value << '\n' << v.front() << " 0\n";
    for (std::size_t i = 0; i < v.size(); ++i) {
      out << v[i] << ' ' << static_cast<double>(i + 1) / static_cast<double>(v.size()) << '\n';
    }
    out << "\n\n";
  }
  return out.str();
}

std::string cdf_script(const fs::path& data, const fs::path& png, const std::string& title,
                       std::string_view name, const std::vector<sweep_point>& points,
                       std::vector<double> sweep_point::*values) {
  std::string plots;
  std::size_t block = 0;
  for (const auto& p : points) {
    if ((p.*values).empty()) {
      continue;
    }
    plots += std::string(plots.empty() ? "" : ", ") + gp_string(data.string()) + " index " +
             std::to_string(block++) + " using 1:2 with steps title " +
             gp_string(p.x_label + "=" + p.x_value);
  }
  if (plots.empty()) {  // nothing completed: an empty frame that says so
    plots = "[0:1] -1 title 'no completed requests'";
  }
  return std::string(terminal) + "set output " + gp_string(png.string()) + "\nset title " +
         gp_string(title + ": " + std::string(name) + " distribution") + "\nset xlabel " +
         gp_string(std::string(name) + " (ms)") +
         "\nset ylabel 'fraction of requests'\nset yrange [0:1]\nset grid\n"
         "set key bottom right\nplot " +
         plots + "\n";
}

// gnuplot's full path from PATH; empty when it is not there.
fs::path find_gnuplot() {
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path == nullptr ? "" : path);
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    const fs::path candidate = fs::path(dir.empty() ? "." : dir) / "gnuplot";
    if (!dir.empty() && access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
  }
  return {};
}

status run_gnuplot(const fs::path& gnuplot, const fs::path& script) {
  std::string arg0 = "gnuplot";
  std::string arg1 = script.string();
  std::array<char*, 3> argv{arg0.data(), arg1.data(), nullptr};
  pid_t pid = 0;
  if (const int rc = posix_spawn(&pid, gnuplot.c_str(), nullptr, nullptr, argv.data(), environ);
      rc != 0) {
    return make_error(error_code::io_error, "cannot start " + gnuplot.string() + ": " +
                                                std::generic_category().message(rc));
  }
  int wstatus = 0;
  while (waitpid(pid, &wstatus, 0) < 0) {
    if (errno != EINTR) {
      return make_error(error_code::io_error, "waiting for gnuplot failed");
    }
  }
  if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0) {
    return make_error(error_code::internal, "gnuplot " + script.string() + " failed (status " +
                                                std::to_string(wstatus) + ")");
  }
  return {};
}

}  // namespace

result<std::vector<fs::path>> write_plot_scripts(const fs::path& dir,
                                                 const std::vector<sweep_point>& points,
                                                 const std::string& title) {
  if (points.empty()) {
    return make_error(error_code::invalid_argument, "no sweep points to plot");
  }
  std::error_code ec;
  fs::create_directories(dir, ec);
  const fs::path abs = fs::absolute(dir, ec);
  if (ec) {
    return make_error(error_code::io_error,
                      "cannot create plot folder " + dir.string() + ": " + ec.message());
  }
  const std::array<std::pair<std::string, std::string>, 6> files{{
      {"sweep.dat", sweep_data(points)},
      {"sweep.gp", sweep_script(abs / "sweep.dat", abs / "sweep.png", title, points.front().x_label,
                                std::any_of(points.begin(), points.end(), has_completed))},
      {"ttft.dat", cdf_data(points, &sweep_point::ttft_ms)},
      {"ttft.gp", cdf_script(abs / "ttft.dat", abs / "ttft.png", title, "TTFT", points,
                             &sweep_point::ttft_ms)},
      {"itl.dat", cdf_data(points, &sweep_point::itl_ms)},
      {"itl.gp",
       cdf_script(abs / "itl.dat", abs / "itl.png", title, "ITL", points, &sweep_point::itl_ms)},
  }};
  std::vector<fs::path> scripts;
  for (const auto& [name, text] : files) {
    if (auto s = write_file(abs / name, text); !s) {
      return s.err();
    }
    if (name.ends_with(".gp")) {
      scripts.push_back(abs / name);
    }
  }
  return scripts;
}

result<std::vector<fs::path>> draw_plots(const fs::path& dir,
                                         const std::vector<sweep_point>& points,
                                         const std::string& title) {
  auto scripts = write_plot_scripts(dir, points, title);
  if (!scripts) {
    return scripts.err();
  }
  const fs::path gnuplot = find_gnuplot();
  if (gnuplot.empty()) {
    return make_error(error_code::not_found,
                      "gnuplot is not on PATH: install gnuplot-nox (apt-get install "
                      "gnuplot-nox) to draw the plots; the scripts are in " +
                          dir.string());
  }
  std::vector<fs::path> pngs;
  for (const auto& script : *scripts) {
    fs::path png = script;
    png.replace_extension(".png");
    std::error_code ec;
    fs::remove(png, ec);  // a stale PNG must not pass for a new one
    if (auto s = run_gnuplot(gnuplot, script); !s) {
      return s.err();
    }
    if (!fs::exists(png, ec) || fs::file_size(png, ec) == 0) {
      return make_error(error_code::internal,
                        "gnuplot ran " + script.string() + " but did not write " + png.string());
    }
    pngs.push_back(png);
  }
  return pngs;
}

}  // namespace pagedserve::loadtest
