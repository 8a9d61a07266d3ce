// `pagedserve generate` end to end: the binary's --json output on a golden model gives the
// HF greedy continuation, and a broken checkpoint folder fails with a message and a
// non-zero exit status.

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/cli_runner.h"
#include "tests/support/fixtures.h"
#include "tests/support/temp_dir.h"

namespace pagedserve::forward::testing {
namespace {

namespace fs = std::filesystem;

using pagedserve::testing::run_pagedserve;
using run_result = pagedserve::testing::cli_result;

std::string join(const boost::json::array& ids) {
  std::string s;
  for (const auto& id : ids) {
    if (!s.empty()) s += ',';
    s += std::to_string(id.as_int64());
  }
  return s;
}

boost::json::value read_json(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return boost::json::parse(text.str());
}

TEST(generate_cli, json_output_on_tiny_llama_is_the_golden_greedy_continuation) {
  const fs::path model = pagedserve::testing::goldens_dir() / "models" / "tiny-llama";
  const auto golden = read_json(model / "golden.json");
  const auto& prompt = golden.at("prompts").as_array().at(1).as_object();
  const run_result r = run_pagedserve("generate --model " + model.string() + " --prompt-ids " +
                                      join(prompt.at("ids").as_array()) +
                                      " --max-tokens 24 --temperature 0 --ignore-eos --json");
  ASSERT_EQ(r.exit_status, 0) << r.out;
  const auto out = boost::json::parse(r.out).as_object();
  EXPECT_EQ(join(out.at("token_ids").as_array()), join(prompt.at("greedy").as_array()));
  EXPECT_EQ(join(out.at("prompt_token_ids").as_array()), join(prompt.at("ids").as_array()));
  EXPECT_EQ(out.at("finish_reason").as_string(), "length");
}

TEST(generate_cli, truncated_safetensors_fails_with_nonzero_exit) {
  const fs::path model = pagedserve::testing::goldens_dir() / "models" / "tiny-llama";
  const pagedserve::testing::temp_dir dir("pagedserve-generate-broken");
  const fs::path& broken = dir.path();
  fs::copy_file(model / "config.json", broken / "config.json");
  {
    std::ifstream in(model / "model.safetensors", std::ios::binary);
    std::vector<char> head(4096);
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    std::ofstream out(broken / "model.safetensors", std::ios::binary);
    out.write(head.data(), in.gcount());
  }
  const run_result r = run_pagedserve("generate --model " + broken.string() +
                                      " --prompt-ids 1,2,3 --max-tokens 2 --json");
  EXPECT_NE(r.exit_status, 0);
  EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST(generate_cli, missing_model_folder_fails_with_nonzero_exit) {
  const run_result r = run_pagedserve(
      "generate --model /nonexistent/pagedserve-model --prompt-ids 1 --max-tokens 1");
  EXPECT_NE(r.exit_status, 0);
}

TEST(generate_cli, demo_model_runs_without_arguments_but_the_prompt) {
  const run_result r = run_pagedserve("generate --prompt-ids 1,2,3 --max-tokens 3 --json");
  ASSERT_EQ(r.exit_status, 0);
  const auto out = boost::json::parse(r.out).as_object();
  EXPECT_LE(out.at("token_ids").as_array().size(), 3U);
}

// On the GPU the same greedy continuation in fp32; without one (or without CUDA in the
// build) a clear error and exit status 1, never a crash.
TEST(generate_cli, the_cuda_backend_runs_the_golden_or_says_why_not) {
  const fs::path model = pagedserve::testing::goldens_dir() / "models" / "tiny-llama";
  const auto golden = read_json(model / "golden.json");
  const auto& prompt = golden.at("prompts").as_array().at(2).as_object();
  const pagedserve::testing::temp_dir dir("pagedserve-generate-cuda");
  const fs::path stderr_path = dir / "stderr";
  const run_result r = run_pagedserve(
      "generate --model " + model.string() + " --backend cuda --dtype float32 --prompt-ids " +
      join(prompt.at("ids").as_array()) + " --max-tokens 24 --temperature 0 --ignore-eos --json" +
      " 2>" + stderr_path.string());
  if (r.exit_status == 0) {
    const auto out = boost::json::parse(r.out).as_object();
    EXPECT_EQ(join(out.at("token_ids").as_array()), join(prompt.at("greedy").as_array()));
    return;
  }
  EXPECT_EQ(r.exit_status, 1) << r.out;
  std::ifstream err_file(stderr_path);
  std::ostringstream err;
  err << err_file.rdbuf();
  EXPECT_TRUE(err.str().find("no CUDA device") != std::string::npos ||
              err.str().find("not in this build") != std::string::npos)
      << err.str();
}

TEST(generate_cli, a_compute_type_the_backend_lacks_is_a_usage_error) {
  const run_result cpu_half = run_pagedserve("generate --prompt-ids 1,2 --dtype float16 2>&1");
  EXPECT_EQ(cpu_half.exit_status, 2) << cpu_half.out;
  EXPECT_NE(cpu_half.out.find("float32 only"), std::string::npos) << cpu_half.out;
  const run_result unknown = run_pagedserve("generate --prompt-ids 1,2 --dtype int8 2>&1");
  EXPECT_EQ(unknown.exit_status, 2) << unknown.out;
  EXPECT_NE(unknown.out.find("--dtype"), std::string::npos) << unknown.out;
}

}  // namespace
}  // namespace pagedserve::forward::testing
