// `pagedserve bench grammar` on a two-entry workload (a choice and a regex) with the Llama-3
// tokenizer, ours only (--no-xgrammar: the test needs neither node nor the npm package): it
// exits 0 and prints the table's headers and one row per entry; --json has the same figures
// per entry; a text its grammar does not accept fails loudly. No timing is asserted.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/support/cli_runner.h"
#include "tests/support/fixtures.h"
#include "tests/support/temp_dir.h"

namespace pagedserve::testing {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;
using ::testing::HasSubstr;

const std::string workload = R"({"entries": [
  {"name": "mood", "kind": "choice", "spec": ["happy", "sad"], "text": "sad"},
  {"name": "year", "kind": "regex", "spec": "(19|20)[0-9]{2}", "text": "2024"}]})";

fs::path write_workload(const std::string& text) {
  static const temp_dir dir("pagedserve-bench-grammar");
  static int count = 0;
  const fs::path path = dir.path() / ("workload" + std::to_string(++count) + ".json");
  std::ofstream(path) << text;
  return path;
}

cli_result run_bench(const std::string& text, const std::string& extra) {
  return run_pagedserve("bench grammar --no-xgrammar --repeats 1 --tokenizer '" +
                        (tokenizers_dir() / "llama3").string() + "' --workload '" +
                        write_workload(text).string() + "'" + extra);
}

TEST(BenchGrammar, PrintsTheTableForEveryEntry) {
  const cli_result r = run_bench(workload, "");
  ASSERT_EQ(r.exit_status, 0) << r.out;
  for (const char* header : {"entry", "kind", "tokens", "engine", "compile_ms", "first_ms",
                             "cold_mean_us", "cold_p50_us", "cold_p99_us", "warm_mean_us",
                             "warm_p50_us", "warm_p99_us", "vocab 128256"}) {
    EXPECT_THAT(r.out, HasSubstr(header));
  }
  EXPECT_THAT(r.out, HasSubstr("mood"));
  EXPECT_THAT(r.out, HasSubstr("year"));
  EXPECT_THAT(r.out, HasSubstr("--no-xgrammar; printing our figures only"));
}

TEST(BenchGrammar, JsonHasEachEntrysFigures) {
  const cli_result r = run_bench(workload, " --json");
  ASSERT_EQ(r.exit_status, 0) << r.out;
  const json::object out = json::parse(r.out).as_object();
  EXPECT_TRUE(out.at("xgrammar").is_null());
  const json::array& entries = out.at("entries").as_array();
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].at("name").as_string(), "mood");
  EXPECT_EQ(entries[1].at("kind").as_string(), "regex");
  // "2024" and a stop token: at least two steps whatever the tokenizer splits it into.
  EXPECT_GE(entries[1].at("num_tokens").to_number<int>(), 2);
  for (const char* key : {"compile_ms", "first_ms", "cold", "warm"}) {
    EXPECT_TRUE(entries[0].at("ours").as_object().contains(key)) << key;
  }
}

TEST(BenchGrammar, TextTheGrammarRejectsFails) {
  const cli_result r = run_bench(
      R"([{"name": "mood", "kind": "choice", "spec": ["happy", "sad"], "text": "glad"}])", "");
  EXPECT_EQ(r.exit_status, 1) << r.out;
}

TEST(BenchGrammar, UnknownKindIsBadInput) {
  const cli_result r = run_bench(R"([{"name": "x", "kind": "xml", "spec": "", "text": "a"}])", "");
  EXPECT_EQ(r.exit_status, 2) << r.out;
}

}  // namespace
}  // namespace pagedserve::testing
