// bench_tokenizer: encode throughput (MB/s) of the Llama-3 tokenizer on ~1 MB of mixed text
// and the load time of its tokenizer.json, then the same through the JavaScript port
// @lenml/tokenizers on Node (when available), side by side with the ratio, and whether both
// produce the same ids. Prints figures; asserts nothing.
//
// usage: bench_tokenizer [tokenizer_dir] [bytes] [work_dir]

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <boost/json.hpp>

#include "bench/tokenizer/bench_text.h"
#include "runtime/tokenizer/tokenizer.h"
#include "tests/support/run_command.h"
#include "tests/support/test_paths.h"

namespace fs = std::filesystem;
using pagedserve::token_id;
using pagedserve::tokenizer;

namespace {

constexpr int num_runs = 3;

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

struct js_figures {
  double load_ms = 0;
  double first_mb_per_s = 0;
  double best_mb_per_s = 0;
  std::vector<token_id> ids;
};

// Runs bench/tokenizer/js/bench.mjs; a message instead when node or the package is missing.
std::optional<js_figures> run_js(const fs::path& tok_dir, const fs::path& text_file,
                                 const fs::path& work_dir) {
  const fs::path js_dir = pagedserve::testing::source_dir() / "bench" / "tokenizer" / "js";
  if (pagedserve::testing::run_command("command -v node").out.empty()) {
    std::printf("baseline: node is not installed; printing our figures only\n");
    return std::nullopt;
  }
  if (!fs::exists(js_dir / "node_modules" / "@lenml" / "tokenizers")) {
    std::printf("baseline: @lenml/tokenizers missing (run `npm install` in %s); ours only\n",
                js_dir.c_str());
    return std::nullopt;
  }
  const fs::path ids_file = work_dir / "bench_ids_js.txt";
  const std::string out =
      pagedserve::testing::run_command("node '" + (js_dir / "bench.mjs").string() + "' '" +
                                       tok_dir.string() + "' '" + text_file.string() + "' '" +
                                       ids_file.string() + "' " + std::to_string(num_runs))
          .out;
  boost::system::error_code ec;
  const auto json = boost::json::parse(out, ec);
  if (ec || !json.is_object()) {
    std::printf("baseline: node script failed: %s\n", out.c_str());
    return std::nullopt;
  }
  js_figures js;
  js.load_ms = json.at("load_ms").to_number<double>();
  js.first_mb_per_s = json.at("first_mb_per_s").to_number<double>();
  js.best_mb_per_s = json.at("best_mb_per_s").to_number<double>();
  std::ifstream in(ids_file);
  for (long id = 0; in >> id;) js.ids.push_back(static_cast<token_id>(id));
  return js;
}

void compare_ids(const std::vector<token_id>& ours, const std::vector<token_id>& theirs) {
  const auto mismatch = std::mismatch(ours.begin(), ours.end(), theirs.begin(), theirs.end());
  if (mismatch.first == ours.end() && mismatch.second == theirs.end()) {
    std::printf("ids          identical (%zu ids)\n", ours.size());
    return;
  }
  const auto at = static_cast<std::size_t>(mismatch.first - ours.begin());
  std::printf("ids          DIFFER: ours %zu ids, theirs %zu; first difference at index %zu\n",
              ours.size(), theirs.size(), at);
}

}  // namespace

int main(int argc, char** argv) {
  const fs::path tok_dir =
      argc > 1 ? fs::path(argv[1]) : pagedserve::testing::testdata_dir() / "tokenizers" / "llama3";
  const std::size_t bytes = argc > 2 ? std::stoul(argv[2]) : 1000000;
  const fs::path work_dir = argc > 3 ? fs::path(argv[3]) : fs::temp_directory_path();

  const std::string text = pagedserve::bench::make_mixed_text(bytes);
  const fs::path text_file = work_dir / "pagedserve_bench_text.txt";
  std::ofstream(text_file, std::ios::binary) << text;

  double best_load_ms = 1e30;
  double best_load_cpu_ms = 1e30;  // process CPU time: what a busy machine's wall clock hides
  std::shared_ptr<const tokenizer> tok;
  for (int i = 0; i < num_runs; ++i) {
    const auto start = std::chrono::steady_clock::now();
    const std::clock_t cpu_start = std::clock();
    auto loaded = tokenizer::load(tok_dir);
    best_load_cpu_ms = std::min(
        best_load_cpu_ms, static_cast<double>(std::clock() - cpu_start) * 1e3 / CLOCKS_PER_SEC);
    best_load_ms = std::min(best_load_ms, seconds_since(start) * 1e3);
    if (!loaded) {
      std::fprintf(stderr, "bench_tokenizer: %s\n", loaded.err().message.c_str());
      return 1;
    }
    tok = *loaded;  // a fresh tokenizer: the first encode below starts with an empty cache
  }
  std::vector<double> secs;
  std::vector<token_id> ids;
  for (int i = 0; i < num_runs; ++i) {
    const auto start = std::chrono::steady_clock::now();
    ids = tok->encode(text, false);
    secs.push_back(seconds_since(start));
  }
  const double mb = static_cast<double>(text.size()) / 1e6;
  const double first = mb / secs.front();
  const double best = mb / *std::min_element(secs.begin(), secs.end());

  std::printf("text         %zu bytes (%s), %zu ids with %s\n", text.size(), text_file.c_str(),
              ids.size(), tok_dir.c_str());
  const auto js = run_js(tok_dir, text_file, work_dir);
  std::printf("%-12s %14s %18s %17s\n", "", "load ms", "encode MB/s first", "encode MB/s best");
  std::printf("%-12s %14.1f %18.2f %17.2f   (load: %.1f ms of CPU time)\n", "pagedserve",
              best_load_ms, first, best, best_load_cpu_ms);
  if (!js) return 0;
  std::printf("%-12s %14.1f %18.2f %17.2f\n", "@lenml/js", js->load_ms, js->first_mb_per_s,
              js->best_mb_per_s);
  std::printf("%-12s %14.2f %18.2f %17.2f   (>1: pagedserve faster)\n", "ratio",
              js->load_ms / best_load_ms, first / js->first_mb_per_s, best / js->best_mb_per_s);
  compare_ids(ids, js->ids);
  return 0;
}
