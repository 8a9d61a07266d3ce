// `pagedserve eval` run as a user runs it: the demo model against itself (exactly equal
// figures), text lines, and every bad input refused with exit status 2 and a message that
// names the problem.

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

class EvalCli : public ::testing::Test {
 protected:
  // A workload file of this test's own folder.
  fs::path workload(const std::string& text) {
    const fs::path path = dir_ / ("workload" + std::to_string(num_files_++) + ".jsonl");
    std::ofstream(path) << text;
    return path;
  }

  // ARGS on the random demo model (vocabulary 512, byte-level tokenizer) unless they name one.
  static std::string with_model(const std::string& args) {
    return args.find("--model ") == std::string::npos ? "--model demo-random " + args : args;
  }

  // Runs `pagedserve eval ARGS` with stderr folded into out (the messages are checked).
  static cli_result eval(const std::string& args) {
    return run_pagedserve("eval " + with_model(args) + " 2>&1");
  }

  static json::object eval_json(const std::string& args) {
    const cli_result r = run_pagedserve("eval " + with_model(args) + " --json");
    EXPECT_EQ(r.exit_status, 0) << r.out;
    return json::parse(r.out).as_object();
  }

  static std::string golden_model(const std::string& name) {
    return (goldens_dir() / "models" / name).string();
  }

 private:
  temp_dir dir_{"pagedserve-eval-cli"};
  int num_files_ = 0;
};

const std::string two_lines =
    "{\"prompt_token_ids\": [1, 72, 101, 108, 108, 111, 44, 32, 119, 111]}\n"
    "{\"prompt_token_ids\": [1, 300, 200, 100, 400]}\n";

TEST_F(EvalCli, TheDemoModelAgainstItselfAgreesExactly) {
  const json::object out = eval_json(
      "--model demo-random --reference demo-random "
      "--workload " +
      workload(two_lines).string());
  EXPECT_EQ(out.at("model").as_string(), "demo-random");
  EXPECT_EQ(out.at("num_lines").to_number<int>(), 2);
  EXPECT_EQ(out.at("num_scored_tokens").to_number<int>(), 9 + 4);
  EXPECT_NEAR(out.at("mean_kl").to_number<double>(), 0.0, 1e-9);
  EXPECT_EQ(out.at("top1_agreement").to_number<double>(), 1.0);
  EXPECT_EQ(out.at("max_abs_logit_diff").to_number<double>(), 0.0);
  EXPECT_EQ(out.at("perplexity").to_number<double>(),
            out.at("reference_perplexity").to_number<double>());
}

TEST_F(EvalCli, AnIndependentReferenceDiffers) {
  // tiny-llama (HF weights) has the demo model's vocabulary size, 512.
  const json::object out = eval_json("--reference " + golden_model("tiny-llama") + " --workload " +
                                     workload(two_lines).string());
  EXPECT_GT(out.at("mean_kl").to_number<double>(), 1e-3);
  EXPECT_NE(out.at("perplexity").to_number<double>(),
            out.at("reference_perplexity").to_number<double>());
}

TEST_F(EvalCli, TextLinesAreEncodedWithBos) {
  // "hello" with the demo tokenizer: BOS + 5 bytes, 5 positions scored.
  const json::object out = eval_json("--workload " + workload("{\"text\": \"hello\"}\n").string());
  EXPECT_EQ(out.at("num_scored_tokens").to_number<int>(), 5);
  EXPECT_FALSE(out.contains("mean_kl"));
  EXPECT_GT(out.at("perplexity").to_number<double>(), 1.0);
}

TEST_F(EvalCli, MaxLinesAndTheHumanTable) {
  const cli_result r = eval("--max-lines 1 --workload " + workload(two_lines).string());
  ASSERT_EQ(r.exit_status, 0) << r.out;
  EXPECT_NE(r.out.find("scored tokens          9"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("perplexity"), std::string::npos) << r.out;
}

void expect_refused(const cli_result& r, const std::string& message) {
  EXPECT_EQ(r.exit_status, 2) << r.out;
  EXPECT_NE(r.out.find(message), std::string::npos) << r.out;
}

TEST_F(EvalCli, BadInputIsRefusedWithExitStatus2) {
  expect_refused(eval("--workload /nonexistent/eval.jsonl"), "cannot open the workload");
  expect_refused(eval("--workload " + workload("").string()), "no lines to score");
  expect_refused(
      eval("--workload " + workload(two_lines + "{\"prompt_token_ids\": [1,\n").string()),
      "workload line 3: not valid JSON");
  expect_refused(eval("--workload " + workload("{\"prompt_token_ids\": [1, 512]}").string()),
                 "workload line 1: token id 512 is outside the vocabulary [0, 512)");
  expect_refused(eval("--max-model-len 4 --workload " + workload(two_lines).string()),
                 "workload line 1: 10 tokens exceed the context of 4 tokens");
  expect_refused(eval("--max-model-len 5000 --workload " + workload(two_lines).string()),
                 "exceeds the 4096 positions");
  expect_refused(eval("--workload " + workload("{\"prompt_token_ids\": [1]}").string()),
                 "nothing to score");
  expect_refused(eval("--max-lines 0 --workload " + workload(two_lines).string()),
                 "--max-lines must be at least 1");
  expect_refused(eval("--model /nonexistent/model --workload " + workload(two_lines).string()),
                 "cannot load the model");
}

TEST_F(EvalCli, AReferenceWithAnotherVocabularyIsRefused) {
  // tiny-qwen2 has 600 logits, the demo model 512.
  expect_refused(eval("--reference " + golden_model("tiny-qwen2") + " --workload " +
                      workload(two_lines).string()),
                 "has another vocabulary (600 logits, the model demo-random 512)");
}

TEST_F(EvalCli, WrapTokenIdsMapsASyntheticWorkloadIntoTheVocabulary) {
  const json::object out = eval_json("--wrap-token-ids --workload " +
                                     workload("{\"prompt_token_ids\": [9000, 1, 700]}").string());
  EXPECT_EQ(out.at("num_scored_tokens").to_number<int>(), 2);
}

}  // namespace
}  // namespace pagedserve::testing
