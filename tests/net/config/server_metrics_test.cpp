// /metrics text: exact families and samples, cumulative histogram buckets, label escaping,
// and promtool's own parser and linter as the judge of the format.

#include <cstdio>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "net/config/server_metrics.h"
#include "tests/net/config/temp_file.h"
#include "tests/support/run_command.h"

namespace pagedserve::net {
namespace {

using ::testing::HasSubstr;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// sample line without its value -> value, for samples whose line starts with `name`.
std::map<std::string, std::string> samples(const std::string& text, const std::string& name) {
  std::map<std::string, std::string> out;
  for (const std::string& line : lines_of(text)) {
    if (!line.starts_with(name)) continue;
    const std::size_t space = line.rfind(' ');
    out[line.substr(0, space)] = line.substr(space + 1);
  }
  return out;
}

engine_stats some_stats() {
  engine_stats s;
  s.num_running = 3;
  s.num_waiting = 7;
  s.kv_usage = 0.25;
  s.prefix_cache_queries = 1000;
  s.prefix_cache_hits = 640;
  s.num_preemptions = 2;
  s.num_prompt_tokens = 5000;
  s.num_generation_tokens = 1200;
  s.num_finished_stop = 4;
  s.iteration_tokens.observe(1);
  s.iteration_tokens.observe(100);
  s.iteration_tokens.observe(20000);
  return s;
}

TEST(ServerMetrics, GaugesAndCountersCarryTheEngineFigures) {
  server_metrics m;
  const std::string text = m.render(some_stats(), "demo");
  for (const char* line : {
           "# TYPE pagedserve:num_requests_running gauge",
           "pagedserve:num_requests_running{model_name=\"demo\"} 3",
           "pagedserve:num_requests_waiting{model_name=\"demo\"} 7",
           "pagedserve:kv_cache_usage_perc{model_name=\"demo\"} 0.25",
           "# TYPE pagedserve:prefix_cache_queries_total counter",
           "pagedserve:prefix_cache_queries_total{model_name=\"demo\"} 1000",
           "pagedserve:prefix_cache_hits_total{model_name=\"demo\"} 640",
           "pagedserve:num_preemptions_total{model_name=\"demo\"} 2",
           "pagedserve:prompt_tokens_total{model_name=\"demo\"} 5000",
           "pagedserve:generation_tokens_total{model_name=\"demo\"} 1200",
       }) {
    EXPECT_THAT(lines_of(text), ::testing::Contains(std::string(line))) << line;
  }
}

TEST(ServerMetrics, EveryFamilyHasHelpAndType) {
  server_metrics m;
  const std::string text = m.render(engine_stats{}, "m");
  for (const char* family :
       {"num_requests_running", "num_requests_waiting", "kv_cache_usage_perc",
        "prefix_cache_queries_total", "prefix_cache_hits_total", "num_preemptions_total",
        "prompt_tokens_total", "generation_tokens_total", "request_success_total",
        "http_responses_total", "time_to_first_token_seconds", "inter_token_latency_seconds",
        "e2e_request_latency_seconds", "request_queue_time_seconds", "iteration_tokens_total"}) {
    EXPECT_THAT(text, HasSubstr(std::string("# HELP pagedserve:") + family + " ")) << family;
    EXPECT_THAT(text, HasSubstr(std::string("# TYPE pagedserve:") + family + " ")) << family;
  }
}

// Finished completions come from the engine's one count, named as vLLM names them: a
// cancelled completion (its client left) is an "abort", a failed one an "error".
TEST(ServerMetrics, CountsFinishedRequestsAndResponsesByKind) {
  server_metrics m;
  engine_stats stats;
  stats.num_finished_stop = 2;
  stats.num_finished_length = 1;
  stats.num_cancelled = 1;
  m.count_http_response(200);
  m.count_http_response(204);
  m.count_http_response(404);
  m.count_http_response(429);
  m.count_http_response(503);
  m.count_http_response(101);  // WebSocket upgrade: not counted
  const auto finished = samples(m.render(stats, "m"), "pagedserve:request_success");
  EXPECT_EQ(
      finished.at("pagedserve:request_success_total{model_name=\"m\",finished_reason=\"stop\"}"),
      "2");
  EXPECT_EQ(
      finished.at("pagedserve:request_success_total{model_name=\"m\",finished_reason=\"length\"}"),
      "1");
  EXPECT_EQ(
      finished.at("pagedserve:request_success_total{model_name=\"m\",finished_reason=\"abort\"}"),
      "1");
  EXPECT_EQ(
      finished.at("pagedserve:request_success_total{model_name=\"m\",finished_reason=\"error\"}"),
      "0");
  const auto codes = samples(m.render(engine_stats{}, "m"), "pagedserve:http_responses");
  EXPECT_EQ(codes.at("pagedserve:http_responses_total{model_name=\"m\",code=\"2xx\"}"), "2");
  EXPECT_EQ(codes.at("pagedserve:http_responses_total{model_name=\"m\",code=\"4xx\"}"), "2");
  EXPECT_EQ(codes.at("pagedserve:http_responses_total{model_name=\"m\",code=\"5xx\"}"), "1");
}

TEST(ServerMetrics, HistogramBucketsAreCumulative) {
  server_metrics m;
  // Bounds (vLLM's): ... 0.001, 0.005, 0.01, 0.02, 0.04, 0.06 ... 2560, then +Inf.
  for (double v : {0.003, 0.005, 0.05, 3000.0}) m.observe_time_to_first_token(v);
  const auto ttft =
      samples(m.render(engine_stats{}, "m"), "pagedserve:time_to_first_token_seconds");
  const std::string b = "pagedserve:time_to_first_token_seconds_bucket{model_name=\"m\",le=";
  EXPECT_EQ(ttft.at(b + "\"0.001\"}"), "0");
  EXPECT_EQ(ttft.at(b + "\"0.005\"}"), "2");  // le: 0.005 itself falls in this bucket
  EXPECT_EQ(ttft.at(b + "\"0.04\"}"), "2");
  EXPECT_EQ(ttft.at(b + "\"0.06\"}"), "3");
  EXPECT_EQ(ttft.at(b + "\"2560\"}"), "3");
  EXPECT_EQ(ttft.at(b + "\"+Inf\"}"), "4");
  EXPECT_EQ(ttft.at("pagedserve:time_to_first_token_seconds_count{model_name=\"m\"}"), "4");
  EXPECT_DOUBLE_EQ(
      std::stod(ttft.at("pagedserve:time_to_first_token_seconds_sum{model_name=\"m\"}")), 3000.058);
  EXPECT_EQ(ttft.size(), 24u + 2u);  // 23 bounds + Inf, sum, count
}

TEST(ServerMetrics, EachHistogramGetsItsOwnObservations) {
  server_metrics m;
  m.observe_inter_token_latency(0.02);
  m.observe_e2e_latency(1.0);
  m.observe_e2e_latency(2.0);
  m.observe_queue_time(0.0);
  const std::string text = m.render(some_stats(), "m");
  const auto count = [&](const std::string& name) {
    return samples(text, name + "_count").at(name + "_count{model_name=\"m\"}");
  };
  EXPECT_EQ(count("pagedserve:inter_token_latency_seconds"), "1");
  EXPECT_EQ(count("pagedserve:e2e_request_latency_seconds"), "2");
  EXPECT_EQ(count("pagedserve:request_queue_time_seconds"), "1");
  EXPECT_EQ(count("pagedserve:time_to_first_token_seconds"), "0");
  EXPECT_EQ(count("pagedserve:iteration_tokens_total"), "3");
  const auto iteration = samples(text, "pagedserve:iteration_tokens_total_bucket");
  const std::string b = "pagedserve:iteration_tokens_total_bucket{model_name=\"m\",le=";
  EXPECT_EQ(iteration.at(b + "\"1\"}"), "1");
  EXPECT_EQ(iteration.at(b + "\"64\"}"), "1");
  EXPECT_EQ(iteration.at(b + "\"128\"}"), "2");
  EXPECT_EQ(iteration.at(b + "\"16384\"}"), "2");
  EXPECT_EQ(iteration.at(b + "\"+Inf\"}"), "3");
}

TEST(ServerMetrics, EscapesTheModelName) {
  server_metrics m;
  const std::string text = m.render(engine_stats{}, "a\"b\\c\nd");
  EXPECT_THAT(text, HasSubstr("pagedserve:num_requests_running{model_name=\"a\\\"b\\\\c\\nd\"} 0"));
}

// Three layers of four experts: layer 0 dense (no row rendered), layer 1 routed 10, 30, 0, 0
// (mean 10: ratios 1, 3, 0, 0), layer 2 evenly (ratios 1).
engine_stats moe_stats() {
  engine_stats s = some_stats();
  s.moe_num_experts = 4;
  s.moe_expert_tokens = {0, 0, 0, 0, 10, 30, 0, 0, 5, 5, 5, 5};
  return s;
}

// Runs promtool check metrics on the text; returns its exit status and output.
std::pair<int, std::string> promtool_check(const std::string& text) {
  testing::temp_file file("metrics.txt", text);
  const auto r =
      testing::run_command("promtool check metrics < '" + file.path().string() + "' 2>&1");
  return {r.exit_status, r.out};
}

// promtool parses the text (exit 1 on a format error) and lints it (exit 3 on findings).
// Two findings are deliberate, both from keeping vLLM's names so its dashboards work:
// the "pagedserve:" namespace (':' is legal, but reserved for recording rules by
// convention) and the histogram iteration_tokens_total (vLLM's name ends in _total).
TEST(ServerMetrics, PromtoolAcceptsTheText) {
  if (std::system("command -v promtool > /dev/null 2>&1") != 0) {
    GTEST_SKIP() << "promtool not installed (Debian package prometheus, scripts/install-deps.sh)";
  }
  server_metrics m;
  m.observe_time_to_first_token(0.2);
  m.observe_inter_token_latency(0.01);
  m.count_http_response(200);
  const auto [code, output] = promtool_check(m.render(moe_stats(), "meta-llama/Llama-3.2-1B"));
  ASSERT_TRUE(code == 0 || code == 3) << "promtool exit " << code << ":\n" << output;
  for (const std::string& line : lines_of(output)) {
    const bool colon = line.ends_with("metric names should not contain ':'");
    const bool iteration_total =
        line ==
        "pagedserve:iteration_tokens_total non-counter metrics should not have \"_total\" suffix";
    EXPECT_TRUE(colon || iteration_total) << "promtool: " << line;
  }
}

TEST(ServerMetrics, ExpertLoadPerSparseLayerAndItsRatioHistogram) {
  const std::string text = server_metrics{}.render(moe_stats(), "m");
  const auto tokens = samples(text, "pagedserve:moe_expert_tokens_total{");
  EXPECT_EQ(tokens.size(), 8U);  // layers 1 and 2 only
  const std::string t = "pagedserve:moe_expert_tokens_total{model_name=\"m\",";
  EXPECT_EQ(tokens.at(t + "layer=\"1\",expert=\"1\"}"), "30");
  EXPECT_EQ(tokens.at(t + "layer=\"2\",expert=\"3\"}"), "5");
  EXPECT_EQ(tokens.count(t + "layer=\"0\",expert=\"0\"}"), 0U);
  const auto ratio = samples(text, "pagedserve:moe_expert_load_ratio");
  const std::string b = "pagedserve:moe_expert_load_ratio_bucket{model_name=\"m\",le=";
  EXPECT_EQ(ratio.at(b + "\"0\"}"), "2");  // the two idle experts
  EXPECT_EQ(ratio.at(b + "\"0.75\"}"), "2");
  EXPECT_EQ(ratio.at(b + "\"1\"}"), "7");  // + five at their fair share
  EXPECT_EQ(ratio.at(b + "\"2\"}"), "7");
  EXPECT_EQ(ratio.at(b + "\"4\"}"), "8");  // + the one at three times it
  EXPECT_EQ(ratio.at(b + "\"+Inf\"}"), "8");
  EXPECT_EQ(ratio.at("pagedserve:moe_expert_load_ratio_sum{model_name=\"m\"}"), "8");
  EXPECT_EQ(ratio.at("pagedserve:moe_expert_load_ratio_count{model_name=\"m\"}"), "8");
  // A dense model has neither family.
  EXPECT_THAT(server_metrics{}.render(some_stats(), "m"), ::testing::Not(HasSubstr("moe_expert")));
}

// vLLM's spec_decode families (its names, its position label), only once something was
// verified.
TEST(ServerMetrics, SpeculativeDecodingFamiliesAsVllmNamesThem) {
  EXPECT_THAT(server_metrics{}.render(some_stats(), "m"), ::testing::Not(HasSubstr("spec_decode")));
  engine_stats s = some_stats();
  s.spec_decode_num_drafts = 10;
  s.spec_decode_num_draft_tokens = 40;
  s.spec_decode_num_accepted_tokens = 25;
  s.spec_decode_accepted_per_pos = {9, 8, 5, 3};
  const std::string text = server_metrics{}.render(s, "m");
  const auto all = samples(text, "pagedserve:spec_decode_");
  EXPECT_EQ(all.at("pagedserve:spec_decode_num_drafts_total{model_name=\"m\"}"), "10");
  EXPECT_EQ(all.at("pagedserve:spec_decode_num_draft_tokens_total{model_name=\"m\"}"), "40");
  EXPECT_EQ(all.at("pagedserve:spec_decode_num_accepted_tokens_total{model_name=\"m\"}"), "25");
  const std::string p =
      "pagedserve:spec_decode_num_accepted_tokens_per_pos_total{model_name=\"m\",";
  EXPECT_EQ(all.at(p + "position=\"0\"}"), "9");
  EXPECT_EQ(all.at(p + "position=\"3\"}"), "3");
  EXPECT_EQ(all.size(), 7U);
  // Replicas' figures add up, position by position.
  engine_stats total = s;
  engine_stats other = s;
  other.spec_decode_accepted_per_pos = {1, 1, 1, 1, 1, 1};
  add_engine_stats(total, other);
  EXPECT_EQ(total.spec_decode_num_accepted_tokens, 50U);
  EXPECT_EQ(total.spec_decode_accepted_per_pos, (std::vector<std::uint64_t>{10, 9, 6, 4, 1, 1}));
}

std::vector<replica_info> two_replicas() {
  replica_info a{.name = "local-0", .up = true, .stats = some_stats(), .num_routed = 12};
  replica_info b{.name = "10.0.0.5:7001", .up = false, .stats = {}, .num_routed = 3};
  b.stats.prefix_cache_queries = 64;
  return {a, b};
}

// A router's replicas: one family per figure, a sample per replica labelled with its name.
TEST(ServerMetrics, ReplicasGetTheirOwnFamiliesLabelledByName) {
  server_metrics m;
  const auto replicas = two_replicas();
  const std::string text = m.render(some_stats(), "demo", replicas);
  for (const char* line : {
           "# TYPE pagedserve:replica_up gauge",
           "pagedserve:replica_up{model_name=\"demo\",replica=\"local-0\"} 1",
           "pagedserve:replica_up{model_name=\"demo\",replica=\"10.0.0.5:7001\"} 0",
           "# TYPE pagedserve:replica_routed_requests_total counter",
           "pagedserve:replica_routed_requests_total{model_name=\"demo\",replica=\"local-0\"} 12",
           "pagedserve:replica_routed_requests_total{model_name=\"demo\",replica=\"10.0.0.5:7001\"}"
           " 3",
           "pagedserve:replica_num_requests_running{model_name=\"demo\",replica=\"local-0\"} 3",
           "pagedserve:replica_num_requests_waiting{model_name=\"demo\",replica=\"local-0\"} 7",
           "pagedserve:replica_kv_cache_usage_perc{model_name=\"demo\",replica=\"local-0\"} 0.25",
           "pagedserve:replica_prefix_cache_hits_total{model_name=\"demo\",replica=\"local-0\"} "
           "640",
           "pagedserve:replica_prefix_cache_queries_total{model_name=\"demo\",replica=\"10.0.0.5:"
           "7001\"} 64",
       }) {
    EXPECT_THAT(lines_of(text), ::testing::Contains(std::string(line))) << line;
  }
  // Without replicas (one engine) none of these families appear.
  EXPECT_THAT(m.render(some_stats(), "demo"), ::testing::Not(HasSubstr("replica")));
}

TEST(ServerMetrics, PromtoolAcceptsTheReplicaFamilies) {
  if (std::system("command -v promtool > /dev/null 2>&1") != 0) {
    GTEST_SKIP() << "promtool not installed (Debian package prometheus, scripts/install-deps.sh)";
  }
  server_metrics m;
  const auto replicas = two_replicas();
  const auto [code, output] = promtool_check(m.render(some_stats(), "demo", replicas));
  ASSERT_TRUE(code == 0 || code == 3) << "promtool exit " << code << ":\n" << output;
  for (const std::string& line : lines_of(output)) {
    EXPECT_TRUE(line.ends_with("metric names should not contain ':'") ||
                line.find("iteration_tokens_total") != std::string::npos)
        << "promtool: " << line;
  }
}

TEST(ServerMetrics, PromtoolRejectsBrokenText) {
  if (std::system("command -v promtool > /dev/null 2>&1") != 0) {
    GTEST_SKIP() << "promtool not installed (Debian package prometheus, scripts/install-deps.sh)";
  }
  // Guards the test above: a malformed exposition must fail with exit code 1.
  const auto [code, output] = promtool_check("# TYPE x counter\nx{a=\"b} 1\n");
  EXPECT_EQ(code, 1) << output;
}

}  // namespace
}  // namespace pagedserve::net
