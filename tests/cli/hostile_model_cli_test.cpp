// `pagedserve generate` and `pagedserve serve` pointed at hostile model folders (made here from
// the tiny-llama golden): each exits 1 (cannot load) or 2 (the folder is at fault) with a
// message naming the file and the field, never by a signal or an out-of-memory kill
// (docs/model-folder-limits.md). Before the checks, the huge layer count and the huge token
// id allocated until the process died.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

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
using ::testing::AllOf;
using ::testing::HasSubstr;

// A copy of tiny-llama (config, generation config, weights) to break one file of.
class hostile_model : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* name : {"config.json", "generation_config.json", "model.safetensors"}) {
      fs::copy_file(goldens_dir() / "models" / "tiny-llama" / name, dir_ / name);
    }
  }

  void set_config_key(const std::string& key, const boost::json::value& value) {
    std::ifstream in(dir_ / "config.json");
    std::ostringstream text;
    text << in.rdbuf();
    boost::json::object config = boost::json::parse(text.str()).as_object();
    config[key] = value;
    write(dir_ / "config.json", boost::json::serialize(config));
  }

  static void write(const fs::path& path, const std::string& text) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
  }

  // stdout and stderr together; a signal shows as exit_status -1.
  [[nodiscard]] cli_result generate() const {
    return run_pagedserve("generate --model '" + dir_.path().string() +
                          "' --prompt-ids 1,2,3 --max-tokens 2 2>&1");
  }

  // Loads the tokenizer too. A watchdog stops a server that wrongly started (then the
  // status is a signal's, and the test fails) instead of leaving the test to hang.
  [[nodiscard]] cli_result serve() const {
    return run_pagedserve("serve --model '" + dir_.path().string() +
                          "' --port 0 --max-model-len 64 2>&1 & pid=$!; "
                          "( sleep 120; kill $pid ) >/dev/null 2>&1 & watchdog=$!; "
                          "wait $pid; status=$?; kill $watchdog 2>/dev/null; exit $status");
  }

  temp_dir dir_{"pagedserve-hostile-model"};
};

TEST_F(hostile_model, AbsurdLayerCountExits2NamingTheKey) {
  set_config_key("num_hidden_layers", 1000000000000);
  const cli_result r = generate();
  EXPECT_EQ(r.exit_status, 2) << r.out;
  EXPECT_THAT(r.out, AllOf(HasSubstr("config.json"), HasSubstr("'num_hidden_layers'"),
                           HasSubstr("1000000000000")));
}

TEST_F(hostile_model, HugeVocabSizeExits2NamingTheKey) {
  set_config_key("vocab_size", 4000000000);
  const cli_result r = generate();
  EXPECT_EQ(r.exit_status, 2) << r.out;
  EXPECT_THAT(r.out, AllOf(HasSubstr("'vocab_size'"), HasSubstr("4000000000")));
}

TEST_F(hostile_model, HugeGroupSizeExits2NamingTheKey) {
  set_config_key("quantization_config", boost::json::parse(R"({"quant_method": "gptq", "bits": 4,
                                       "group_size": 9223372036854775807})"));
  const cli_result r = generate();
  EXPECT_EQ(r.exit_status, 2) << r.out;
  EXPECT_THAT(r.out, AllOf(HasSubstr("'group_size'"), HasSubstr("9223372036854775807")));
}

TEST_F(hostile_model, SafetensorsHeaderLengthPastTheFileExits2) {
  std::string header_length(8, '\xff');
  header_length[7] = '\x7f';
  write(dir_ / "model.safetensors", header_length + "{}");
  const cli_result r = generate();
  EXPECT_EQ(r.exit_status, 2) << r.out;
  EXPECT_THAT(r.out, AllOf(HasSubstr("model.safetensors"), HasSubstr("header length"),
                           HasSubstr("9223372036854775807")));
}

TEST_F(hostile_model, IndexNamingAFileOutsideTheFolderExits2) {
  fs::rename(dir_ / "model.safetensors", dir_ / "model-00001-of-00001.safetensors");
  write(dir_ / "model.safetensors.index.json",
        R"({"weight_map": {"model.embed_tokens.weight": "../../etc/passwd"}})");
  const cli_result r = generate();
  EXPECT_EQ(r.exit_status, 2) << r.out;
  EXPECT_THAT(r.out, AllOf(HasSubstr("model.safetensors.index.json"),
                           HasSubstr("model.embed_tokens.weight"), HasSubstr("../../etc/passwd")));
}

TEST_F(hostile_model, FifoInPlaceOfTheWeightsExits1WithoutBlocking) {
  fs::remove(dir_ / "model.safetensors");
  ASSERT_EQ(::mkfifo((dir_ / "model.safetensors").c_str(), 0600), 0);
  const cli_result r = generate();
  EXPECT_EQ(r.exit_status, 1) << r.out;
  EXPECT_THAT(r.out, AllOf(HasSubstr("model.safetensors"), HasSubstr("not a regular file")));
}

TEST_F(hostile_model, HugeTokenIdInTokenizerJsonStopsServeWith2) {
  write(dir_ / "tokenizer.json", R"({"model": {"type": "BPE", "merges": [],
    "vocab": {"a": 0, "b": 1, "c": 4000000000}}})");
  const cli_result r = serve();
  EXPECT_EQ(r.exit_status, 2) << r.out;
  EXPECT_THAT(r.out, AllOf(HasSubstr("tokenizer.json"), HasSubstr("'c'"), HasSubstr("4000000000")));
}

}  // namespace
}  // namespace pagedserve::testing
