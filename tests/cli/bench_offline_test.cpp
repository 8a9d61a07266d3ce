// `pagedserve bench offline` end to end on the demo model: a small workload written here,
// every request completed with exactly its max_tokens tokens (sums computed here from the
// file), the static baseline and --peer figures beside it, no device figures on the CPU;
// bad input exits non-zero with a message (2 for a bad command line).

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/support/cli_runner.h"
#include "tests/support/temp_dir.h"

namespace pagedserve::testing {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;
using ::testing::HasSubstr;

struct test_request {
  std::vector<int> prompt;
  std::uint64_t max_tokens = 0;
};

// Token 700 and 1033 lie outside the demo vocabulary (512): the bench maps them id % 512.
const std::vector<test_request> requests{
    {{5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, 6},
    {{20, 21, 22}, 9},
    {{30, 31, 32, 33, 34, 700, 36}, 3},
    {{40, 41, 42, 43, 44, 45, 46, 47, 48, 1033, 50, 51, 52}, 7},
    {{60, 61}, 5},
    {{70, 71, 72, 73, 74, 75}, 4},
};

fs::path write_file(const std::string& name, const std::string& text) {
  // One folder per test process (ctest runs each test in its own): tests never share a path.
  static const temp_dir dir("pagedserve-bench-offline");
  const fs::path path = dir / name;
  std::ofstream(path) << text;
  return path;
}

fs::path write_workload() {
  std::string text;
  for (const test_request& r : requests) {
    text += json::serialize(json::object{{"prompt_token_ids", json::value_from(r.prompt)},
                                         {"max_tokens", r.max_tokens}});
    text += '\n';
  }
  return write_file("workload.jsonl", text);
}

// Small KV memory (24 blocks of 4 = 96 slots) so the static baseline batches by 4.
const std::string engine_flags = " --block-size 4 --num-blocks 24 --max-num-seqs 4";

json::object run_json(const std::string& extra) {
  const cli_result r = run_pagedserve("bench offline --workload " + write_workload().string() +
                                      engine_flags + " --compare-static --json" + extra);
  EXPECT_EQ(r.exit_status, 0) << r.out;
  return json::parse(r.out).as_object();
}

std::uint64_t number(const json::object& o, const char* key) {
  return o.at(key).to_number<std::uint64_t>();
}

TEST(BenchOffline, EveryRequestCompletesWithItsMaxTokens) {
  const json::object out = run_json("");
  std::uint64_t output = 0;
  std::uint64_t prompt = 0;
  for (const test_request& r : requests) {
    output += r.max_tokens;
    prompt += r.prompt.size();
  }
  const json::object& engine = out.at("engine").as_object();
  EXPECT_EQ(number(engine, "num_requests"), requests.size());
  EXPECT_EQ(number(engine, "completed"), requests.size());
  EXPECT_EQ(number(engine, "output_tokens"), output);
  EXPECT_EQ(number(engine, "prompt_tokens"), prompt);
  EXPECT_EQ(number(engine, "leaked_blocks"), 0u);
  EXPECT_GT(number(engine, "steps"), 0u);
  for (const char* key : {"wall_s", "output_tokens_per_s", "total_tokens_per_s", "mean_batch_size",
                          "kv_utilization"}) {
    EXPECT_GT(engine.at(key).to_number<double>(), 0.0) << key;
  }
  EXPECT_LE(engine.at("mean_batch_size").to_number<double>(), 4.0);
  EXPECT_LE(engine.at("kv_utilization").to_number<double>(), 1.0);
  const double idle = engine.at("executor_idle_fraction").to_number<double>();
  EXPECT_TRUE(idle >= 0.0 && idle <= 1.0) << idle;
  EXPECT_TRUE(engine.contains("num_preemptions"));
  EXPECT_TRUE(engine.contains("prefix_cache_hit_rate"));

  // Static: the longest prompt (13) + largest output (9) reserve 22 of 96 slots: batches of 4.
  const json::object& fixed = out.at("static").as_object();
  EXPECT_EQ(number(fixed, "batch_size"), 4u);
  EXPECT_EQ(number(fixed, "num_batches"), 2u);
  EXPECT_EQ(number(fixed, "steps"), 9u + 5u);
  EXPECT_EQ(number(fixed, "useful_output_tokens"), output);
  EXPECT_EQ(number(fixed, "computed_tokens"), 4u * (13 + 8) + 2u * (6 + 4));
  EXPECT_GT(out.at("continuous_over_static").to_number<double>(), 0.0);
  EXPECT_EQ(number(out.at("config").as_object(), "num_blocks"), 24u);
  EXPECT_EQ(out.at("config").at("backend").as_string(), "cpu");
  EXPECT_TRUE(out.at("peers").as_array().empty());
}

TEST(BenchOffline, CpuHasNoDeviceClockAndNoGraphs) {
  const json::object engine = run_json("").at("engine").as_object();
  EXPECT_EQ(engine.at("device_idle_s").to_number<double>(), 0.0);
  EXPECT_EQ(engine.at("device_busy_s").to_number<double>(), 0.0);
  EXPECT_TRUE(engine.at("device_idle_fraction").is_null());
  EXPECT_TRUE(engine.at("device_ms_per_step").is_null());
  EXPECT_GE(engine.at("host_ms_per_step").to_number<double>(), 0.0);
  EXPECT_EQ(number(engine, "graph_steps"), 0u);
}

TEST(BenchOffline, PeersAreListedWithTheRatioMeasuredOverPeer) {
  const json::object out = run_json(" --peer ceiling=68000 --peer 'hf transformers=2.5e2'");
  const double measured = out.at("engine").at("output_tokens_per_s").to_number<double>();
  const json::array& peers = out.at("peers").as_array();
  ASSERT_EQ(peers.size(), 2u);
  EXPECT_EQ(peers[0].at("name").as_string(), "ceiling");
  EXPECT_EQ(peers[0].at("output_tokens_per_s").to_number<double>(), 68000.0);
  EXPECT_DOUBLE_EQ(peers[0].at("ratio").to_number<double>(), measured / 68000.0);
  EXPECT_EQ(peers[1].at("name").as_string(), "hf transformers");
  EXPECT_DOUBLE_EQ(peers[1].at("ratio").to_number<double>(), measured / 250.0);
}

TEST(BenchOffline, TextOutputShowsPeersAndNoDeviceClock) {
  const cli_result r = run_pagedserve("bench offline --workload " + write_workload().string() +
                                      engine_flags + " --peer demo=100");
  ASSERT_EQ(r.exit_status, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("on cpu (dtype auto)"));
  EXPECT_THAT(r.out, HasSubstr("  peer demo"));
  EXPECT_THAT(r.out, HasSubstr("measured / peer"));
  EXPECT_THAT(r.out, HasSubstr("host ms/step"));
  EXPECT_THAT(r.out, ::testing::ContainsRegex("device idle fraction +n/a"));
  EXPECT_THAT(r.out, ::testing::ContainsRegex("graph steps +0\n"));
}

// A bad command line: exit 2 before anything is loaded, naming the flag and the form.
cli_result run_bad(const std::string& flags) {
  return run_pagedserve("bench offline --workload " + write_workload().string() + " " + flags +
                        " 2>&1");
}

TEST(BenchOffline, BadPeerExitsWithTwoNamingTheForm) {
  for (const char* bad : {"x", "x=abc", "=5", "x=", "x=0", "x=-3", "x=5tok", "x=inf"}) {
    const cli_result r = run_bad(std::string("--peer '") + bad + "'");
    EXPECT_EQ(r.exit_status, 2) << bad << ": " << r.out;
    EXPECT_THAT(r.out, HasSubstr(std::string("--peer '") + bad + "'")) << bad;
    EXPECT_THAT(r.out, HasSubstr("expected NAME=TOKENS_PER_S")) << bad;
  }
  EXPECT_THAT(run_bad("--peer x").out, HasSubstr("no '='"));
  EXPECT_THAT(run_bad("--peer x=abc").out, HasSubstr("not a number"));
  EXPECT_THAT(run_bad("--peer =5").out, HasSubstr("empty name"));
  EXPECT_THAT(run_bad("--peer x=0").out, HasSubstr("above 0"));
}

TEST(BenchOffline, CompareStaticNeedsTheCpuBackend) {
  const cli_result r = run_bad("--backend cuda --compare-static");
  EXPECT_EQ(r.exit_status, 2) << r.out;
  EXPECT_THAT(r.out, HasSubstr("--compare-static"));
  EXPECT_THAT(r.out, HasSubstr("needs --backend cpu, got cuda"));
}

TEST(BenchOffline, HelpListsTheBackendFlags) {
  const cli_result r = run_pagedserve("bench offline --help");
  EXPECT_EQ(r.exit_status, 0);
  for (const char* flag : {"--backend", "--dtype", "--gpu-memory-utilization", "--enforce-eager",
                           "--peer", "--num-blocks", "--compare-static"}) {
    EXPECT_THAT(r.out, HasSubstr(flag)) << flag;
  }
}

TEST(BenchOffline, LimitAndLengthScaleShrinkTheWorkload) {
  const json::object out = run_json(" --limit 3 --length-scale 0.5");
  std::uint64_t output = 0;
  std::uint64_t prompt = 0;
  for (std::size_t i = 0; i < 3; ++i) {
    const auto half = [](double n) { return std::max<std::uint64_t>(1, std::llround(n * 0.5)); };
    output += half(static_cast<double>(requests[i].max_tokens));
    prompt += half(static_cast<double>(requests[i].prompt.size()));
  }
  const json::object& engine = out.at("engine").as_object();
  EXPECT_EQ(number(engine, "completed"), 3u);
  EXPECT_EQ(number(engine, "output_tokens"), output);
  EXPECT_EQ(number(engine, "prompt_tokens"), prompt);
  EXPECT_EQ(number(out.at("static").as_object(), "useful_output_tokens"), output);
}

TEST(BenchOffline, MissingWorkloadFileIsAnError) {
  const cli_result r =
      run_pagedserve("bench offline --workload /nonexistent/pagedserve/workload.jsonl 2>&1");
  EXPECT_NE(r.exit_status, 0);
  EXPECT_NE(r.out.find("cannot open workload"), std::string::npos) << r.out;
}

TEST(BenchOffline, BadLineIsAnErrorNamingTheLine) {
  const fs::path bad = write_file("bad.jsonl",
                                  "{\"prompt_token_ids\": [1, 2], \"max_tokens\": 3}\n"
                                  "{\"prompt_token_ids\": [1, \n");
  const cli_result r = run_pagedserve("bench offline --workload " + bad.string() + " 2>&1");
  EXPECT_NE(r.exit_status, 0);
  EXPECT_NE(r.out.find("line 2"), std::string::npos) << r.out;
}

TEST(BenchOffline, RequestTheEngineRejectsIsAnError) {
  const cli_result r = run_pagedserve("bench offline --workload " + write_workload().string() +
                                      " --max-model-len 5 2>&1");
  EXPECT_NE(r.exit_status, 0);
  EXPECT_NE(r.out.find("request 1 rejected"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace pagedserve::testing
