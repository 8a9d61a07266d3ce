// pagedserve-bench end to end: the built binary against `pagedserve serve` on the demo model
// (a tiny Llama on the CPU, vocabulary 0..511), started through server_process. Expected
// counts follow from the workload given on the command line (requests x lengths), not from
// earlier output.

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

#include "loadtest/client/server_process.h"
#include "tests/support/cli_runner.h"

namespace pagedserve::loadtest {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;

using bench_result = pagedserve::testing::cli_result;

fs::path bin_dir() { return pagedserve::testing::binary_dir() / "bin"; }

bench_result run_bench(const std::string& args, bool with_stderr = false) {
  return pagedserve::testing::run_built_binary(
      "pagedserve-bench", "--no-progress " + args + (with_stderr ? " 2>&1" : ""));
}

json::object parse_object(const std::string& out) {
  boost::system::error_code ec;
  json::value v = json::parse(out, ec);
  if (ec || !v.is_object()) {
    ADD_FAILURE() << "not a JSON object:\n" << out;
    return {};
  }
  return v.as_object();
}

std::uint64_t count(const json::object& obj, const char* key) {
  return json::value_to<std::uint64_t>(obj.at(key));
}

// A port nothing listens on: bound once by us, then released.
int closed_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

class BenchApp : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new fs::path(fs::temp_directory_path() /
                        ("pagedserve_bench_app_" + std::to_string(::getpid())));
    fs::create_directories(*dir_);
    std::ofstream(config()) << "model: demo-random\nmax_model_len: 128\nmax_num_seqs: 16\n"
                               "num_blocks: 256\n"
                               "log_level: info\n";
    server_launch launch;
    launch.binary = bin_dir() / "pagedserve";
    launch.config = config();
    launch.log_path = *dir_ / "server.log";
    auto started = server_process::start(launch);
    ASSERT_TRUE(started.ok()) << started.err().message;
    server_ = new server_process(std::move(*started));
  }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
    std::error_code ec;
    fs::remove_all(*dir_, ec);
    delete dir_;
  }
  void SetUp() override { ASSERT_NE(server_, nullptr) << "the server did not start"; }

  static fs::path config() { return *dir_ / "server.yaml"; }
  static std::string base_url() { return " --base-url " + server_->url().to_string(); }

  static fs::path* dir_;
  static server_process* server_;
};

fs::path* BenchApp::dir_ = nullptr;
server_process* BenchApp::server_ = nullptr;

const std::string small_random =
    " --dataset-name random --num-prompts 16 --random-input-len 32 --random-output-len 8"
    " --token-id-range 16:272 --ignore-eos";

TEST_F(BenchApp, RandomRunCountsEveryTokenOfEveryRequest) {
  const auto r = run_bench(base_url() + small_random + " --json");
  ASSERT_EQ(r.exit_status, 0) << r.out;
  const json::object result = parse_object(r.out);
  EXPECT_EQ(count(result, "completed"), 16U);
  EXPECT_EQ(count(result, "failed"), 0U);
  EXPECT_EQ(count(result, "total_input_tokens"), 16U * 32U);
  EXPECT_EQ(count(result, "total_output_tokens"), 16U * 8U);
  EXPECT_GT(result.at("mean_ttft_ms").to_number<double>(), 0.0);
  EXPECT_GT(result.at("median_itl_ms").to_number<double>(), 0.0);
  EXPECT_EQ(result.at("model_id"), "demo-random");
}

TEST_F(BenchApp, TableIsTheDefaultOutputAndSaveResultWritesTheJson) {
  const fs::path saved = *dir_ / "saved.json";
  const auto r = run_bench(base_url() + small_random + " --save-result " + saved.string());
  ASSERT_EQ(r.exit_status, 0) << r.out;
  EXPECT_NE(r.out.find("Serving Benchmark Result"), std::string::npos) << r.out;
  std::ifstream in(saved);
  std::ostringstream text;
  text << in.rdbuf();
  EXPECT_EQ(count(parse_object(text.str()), "completed"), 16U);
}

TEST_F(BenchApp, ChatRunWithATextWorkload) {
  const fs::path workload = *dir_ / "chat.jsonl";
  std::ofstream(workload) << R"({"prompt": "Hello there, how are you?", "max_tokens": 6})" << '\n'
                          << R"({"prompt": "Name three colours.", "max_tokens": 6})" << '\n'
                          << R"({"prompt": "Count to five.", "max_tokens": 6})" << '\n';
  const auto r = run_bench(base_url() + " --endpoint /v1/chat/completions --dataset-name jsonl" +
                           " --dataset-path " + workload.string() + " --ignore-eos --json");
  ASSERT_EQ(r.exit_status, 0) << r.out;
  const json::object result = parse_object(r.out);
  EXPECT_EQ(count(result, "completed"), 3U);
  EXPECT_EQ(count(result, "total_output_tokens"), 3U * 6U);
  EXPECT_GT(count(result, "total_input_tokens"), 0U);
}

// --tokenizer sends generated id prompts as text. Ids 48..142 are the demo tokenizer's bytes
// 0x20..0x7E (printable ASCII), so each prompt is 32 characters, which the server's byte-level
// tokenizer encodes as 32 tokens plus BOS; the chat route can then take a random workload.
TEST_F(BenchApp, TokenizerTurnsGeneratedPromptsIntoTextForBothRoutes) {
  const std::string text_random =
      " --dataset-name random --num-prompts 6 --random-input-len 32 --random-output-len 4"
      " --token-id-range 48:143 --tokenizer demo --ignore-eos --json";
  const auto completions = run_bench(base_url() + text_random);
  ASSERT_EQ(completions.exit_status, 0) << completions.out;
  const json::object c = parse_object(completions.out);
  EXPECT_EQ(count(c, "completed"), 6U);
  EXPECT_EQ(count(c, "total_input_tokens"), 6U * 33U);
  const auto chat = run_bench(base_url() + " --endpoint /v1/chat/completions" + text_random);
  ASSERT_EQ(chat.exit_status, 0) << chat.out;
  const json::object h = parse_object(chat.out);
  EXPECT_EQ(count(h, "completed"), 6U);
  EXPECT_EQ(count(h, "total_output_tokens"), 6U * 4U);
  EXPECT_GT(count(h, "total_input_tokens"), 6U * 32U);  // the chat template adds its tokens
}

TEST_F(BenchApp, RateSweepGivesOnePointPerRateAndDrawsThePlots) {
  const fs::path plots = *dir_ / "plots";
  const auto r = run_bench(base_url() + small_random +
                           " --sweep-request-rates 8,inf --json --plot-dir " + plots.string());
  ASSERT_EQ(r.exit_status, 0) << r.out;
  const json::object result = parse_object(r.out);
  EXPECT_EQ(result.at("sweep"), "request_rate");
  const auto& points = result.at("points").as_array();
  ASSERT_EQ(points.size(), 2U);
  EXPECT_EQ(points[0].at("x"), "8");
  EXPECT_EQ(points[1].at("x"), "inf");
  for (const auto& point : points) EXPECT_EQ(count(point.as_object(), "completed"), 16U);
  for (const char* png : {"sweep.png", "ttft.png", "itl.png"}) {
    EXPECT_TRUE(fs::exists(plots / png)) << png;
    EXPECT_GT(fs::file_size(plots / png), 0U) << png;
  }
}

TEST_F(BenchApp, ServerKeySweepStartsAServerPerValue) {
  const auto r = run_bench(small_random + " --server-config " + config().string() +
                           " --sweep-server-key max_num_seqs --sweep-values 1,4 --json" +
                           " --server-log " + (*dir_ / "sweep-server.log").string());
  ASSERT_EQ(r.exit_status, 0) << r.out;
  const json::object result = parse_object(r.out);
  EXPECT_EQ(result.at("sweep"), "max_num_seqs");
  const auto& points = result.at("points").as_array();
  ASSERT_EQ(points.size(), 2U);
  EXPECT_EQ(points[0].at("x"), "1");
  EXPECT_EQ(points[1].at("x"), "4");
  for (const auto& point : points) {
    EXPECT_EQ(count(point.as_object(), "completed"), 16U);
    EXPECT_EQ(count(point.as_object(), "total_output_tokens"), 16U * 8U);
  }
}

TEST_F(BenchApp, RejectedRequestsAreCountedAsFailures) {
  // Ids up to 100000 are far outside the demo vocabulary: the server answers 400.
  const auto r = run_bench(base_url() +
                           " --num-prompts 8 --random-input-len 32 --random-output-len 4"
                           " --token-id-range 0:100000 --json");
  ASSERT_EQ(r.exit_status, 3) << r.out;
  const json::object result = parse_object(r.out);
  EXPECT_EQ(count(result, "completed"), 0U);
  EXPECT_EQ(count(result, "failed"), 8U);
  EXPECT_EQ(count(result.at("failures_by_kind").as_object(), "http_status"), 8U);
  EXPECT_FALSE(result.at("first_errors").as_array().empty());
}

TEST_F(BenchApp, AClosedPortCountsConnectFailures) {
  const std::string url = " --base-url http://127.0.0.1:" + std::to_string(closed_port());
  const auto r = run_bench(url + " --model m --num-prompts 4 --random-input-len 8 --json");
  ASSERT_EQ(r.exit_status, 3) << r.out;
  const json::object result = parse_object(r.out);
  EXPECT_EQ(count(result, "failed"), 4U);
  EXPECT_EQ(count(result.at("failures_by_kind").as_object(), "connect"), 4U);
}

TEST(BenchAppSetup, BadArgumentsExitWithStatus2AndOneLine) {
  struct bad_case {
    std::string args;
    std::string says;
  };
  const std::string unreachable = " --base-url http://127.0.0.1:" + std::to_string(closed_port());
  const bad_case cases[] = {
      {"--request-rate fast", "--request-rate"},
      {"--goodput ttft:fast", "--goodput"},
      {"--no-such-option", "no-such-option"},
      {"--dataset-name jsonl --dataset-path /nonexistent/file.jsonl --model m", "nonexistent"},
      {"--sweep-server-key max_num_seqs --sweep-values 1,2", "--server-config"},
      {unreachable + " --num-prompts 2", "/v1/models"},
      {"--endpoint /v1/chat/completions --model m --num-prompts 2", "chat"},
      {"--tokenizer /nonexistent --model m --num-prompts 2", "--tokenizer /nonexistent"},
      {"--server-config /nonexistent.yaml --server-binary " + (bin_dir() / "pagedserve").string() +
           " --num-prompts 2",
       "exited"},
  };
  for (const auto& c : cases) {
    const auto r = run_bench(c.args, /*with_stderr=*/true);
    EXPECT_EQ(r.exit_status, 2) << c.args << "\n" << r.out;
    EXPECT_NE(r.out.find(c.says), std::string::npos) << c.args << "\n" << r.out;
  }
}

}  // namespace
}  // namespace pagedserve::loadtest
