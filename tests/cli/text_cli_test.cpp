// `pagedserve tokenize` and `pagedserve chat-template` end to end: JSON lines in, JSON lines
// out, checked against the HF goldens; a malformed line is an error line, not a crash.

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/support/cli_runner.h"
#include "tests/support/fixtures.h"
#include "tests/support/temp_dir.h"

namespace pagedserve::testing {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;

json::value read_json(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return json::parse(text.str());
}

std::vector<json::value> parse_lines(const std::string& out) {
  std::vector<json::value> lines;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) lines.push_back(json::parse(line));
  return lines;
}

fs::path write_input(const std::string& name, const std::string& text) {
  static const temp_dir dir("pagedserve-text-cli");  // one per test process
  const fs::path path = dir / (name + ".jsonl");
  std::ofstream(path) << text;
  return path;
}

TEST(TextCli, TokenizeReproducesTheGoldenIdsAndDecode) {
  for (const char* family : {"llama2", "llama3", "qwen3"}) {
    const auto golden = read_json(goldens_dir() / "tokenizers" / (std::string(family) + ".json"));
    const auto& cases = golden.at("cases").as_array();
    std::string input;
    for (const auto& c : cases) {
      input += json::serialize(json::object{{"text", c.at("text")}, {"add_special_tokens", false}});
      input += '\n';
    }
    const fs::path in = write_input(std::string("tokenize_") + family, input);
    const cli_result r = run_pagedserve("tokenize --tokenizer " +
                                        (tokenizers_dir() / family).string() + " < " + in.string());
    ASSERT_EQ(r.exit_status, 0) << family;
    const auto lines = parse_lines(r.out);
    ASSERT_EQ(lines.size(), cases.size()) << family;
    for (std::size_t i = 0; i < cases.size(); ++i) {
      EXPECT_EQ(lines[i].at("ids"), cases[i].at("ids")) << family << " case " << i;
      EXPECT_EQ(lines[i].at("decoded"), cases[i].at("decoded")) << family << " case " << i;
    }
  }
}

TEST(TextCli, ChatTemplateReproducesTheGoldenTextAndIds) {
  for (const char* family : {"llama3", "qwen3"}) {
    const auto golden = read_json(goldens_dir() / "chat" / (std::string(family) + ".json"));
    const auto& cases = golden.at("cases").as_array();
    std::string input;
    for (const auto& c : cases) {
      input +=
          json::serialize(json::object{{"messages", c.at("messages")},
                                       {"add_generation_prompt", c.at("add_generation_prompt")}});
      input += '\n';
    }
    const fs::path in = write_input(std::string("chat_") + family, input);
    const cli_result r = run_pagedserve("chat-template --tokenizer " +
                                        (tokenizers_dir() / family).string() + " < " + in.string());
    ASSERT_EQ(r.exit_status, 0) << family;
    const auto lines = parse_lines(r.out);
    ASSERT_EQ(lines.size(), cases.size()) << family;
    for (std::size_t i = 0; i < cases.size(); ++i) {
      EXPECT_EQ(lines[i].at("text"), cases[i].at("text")) << family << " case " << i;
      EXPECT_EQ(lines[i].at("ids"), cases[i].at("ids")) << family << " case " << i;
    }
  }
}

TEST(TextCli, MalformedLinesAreErrorLinesAndTheRestStillRuns) {
  const fs::path in = write_input("tokenize_bad", "not json\n{\"text\": 5}\n{\"text\": \"ok\"}\n");
  const cli_result r = run_pagedserve("tokenize --tokenizer " +
                                      (tokenizers_dir() / "llama3").string() + " < " + in.string());
  EXPECT_NE(r.exit_status, 0);
  const auto lines = parse_lines(r.out);
  ASSERT_EQ(lines.size(), 3U);
  EXPECT_TRUE(lines[0].as_object().contains("error"));
  EXPECT_TRUE(lines[1].as_object().contains("error"));
  EXPECT_TRUE(lines[2].as_object().contains("ids"));
}

}  // namespace
}  // namespace pagedserve::testing
