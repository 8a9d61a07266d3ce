#include "loadtest/core/plots.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

#include "tests/loadtest/core/summary_records.h"

namespace pagedserve::loadtest {
namespace {

namespace fs = std::filesystem;

sweep_point point_at(const std::string& value, double rate) {
  return {"request_rate",
          value,
          summarize_run(sample_records(), 2.0 / rate, {}),
          {100.0 * rate, 300.0, 200.0},
          {100.0, 100.0, 200.0, 200.0 * rate}};
}

std::vector<sweep_point> sample_points() {
  std::vector<sweep_point> points{point_at("1", 1.0), point_at("4", 4.0)};
  // No completed request: no CDF line.
  points.push_back({"request_rate", "inf", summarize_run({}, 1.0, {}), {}, {}});
  return points;
}

fs::path fresh_dir(const std::string& name) {
  const fs::path dir = fs::path(::testing::TempDir()) / ("ltcore_plots_" + name);
  fs::remove_all(dir);
  return dir;
}

std::string read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

bool gnuplot_on_path() { return std::system("command -v gnuplot > /dev/null 2>&1") == 0; }

TEST(LoadtestPlots, ScriptsAndDataAreWritten) {
  const fs::path dir = fresh_dir("scripts");
  auto scripts = write_plot_scripts(dir, sample_points(), "demo");
  ASSERT_TRUE(scripts.ok()) << scripts.err().message;
  ASSERT_EQ(scripts->size(), 3U);
  for (const char* name : {"sweep", "ttft", "itl"}) {
    const std::string gp = read(dir / (std::string(name) + ".gp"));
    EXPECT_NE(gp.find("pngcairo"), std::string::npos) << name;
    EXPECT_NE(gp.find("size 1000,600"), std::string::npos) << name;
    EXPECT_NE(gp.find(std::string(name) + ".png"), std::string::npos) << name;
    EXPECT_TRUE(fs::exists(dir / (std::string(name) + ".dat"))) << name;
  }
  const std::string ttft = read(dir / "ttft.gp");
  EXPECT_NE(ttft.find("'request_rate=1'"), std::string::npos);
  EXPECT_NE(ttft.find("'request_rate=4'"), std::string::npos);
  EXPECT_EQ(ttft.find("request_rate=inf"), std::string::npos);
  // One line per setting, output tokens/s in column 2: 5 tok/s over 2 s, 20 over 0.5 s.
  const std::string sweep = read(dir / "sweep.dat");
  EXPECT_NE(sweep.find("\"1\" 5 "), std::string::npos) << sweep;
  EXPECT_NE(sweep.find("\"4\" 20 "), std::string::npos) << sweep;
  EXPECT_FALSE(write_plot_scripts(dir, {}, "demo").ok());
}

TEST(LoadtestPlots, GnuplotDrawsPngs) {
  if (!gnuplot_on_path()) {
    GTEST_SKIP() << "gnuplot is not installed";
  }
  const fs::path dir = fresh_dir("draw");
  auto pngs = draw_plots(dir, sample_points(), "demo");
  ASSERT_TRUE(pngs.ok()) << pngs.err().message;
  ASSERT_EQ(pngs->size(), 3U);
  const std::string signature = "\x89PNG\r\n\x1a\n";
  for (const auto& png : *pngs) {
    EXPECT_EQ(read(png).substr(0, 8), signature) << png;
  }
}

TEST(LoadtestPlots, MissingGnuplotSaysWhatToInstall) {
  const char* old = std::getenv("PATH");
  const std::optional<std::string> saved = old ? std::optional<std::string>(old) : std::nullopt;
  setenv("PATH", "", 1);
  const fs::path dir = fresh_dir("missing");
  auto pngs = draw_plots(dir, sample_points(), "demo");
  if (saved) {
    setenv("PATH", saved->c_str(), 1);
  } else {
    unsetenv("PATH");
  }
  ASSERT_FALSE(pngs.ok());
  EXPECT_NE(pngs.err().message.find("install gnuplot-nox"), std::string::npos)
      << pngs.err().message;
  EXPECT_TRUE(fs::exists(dir / "sweep.gp"));  // the scripts stay
}

}  // namespace
}  // namespace pagedserve::loadtest
