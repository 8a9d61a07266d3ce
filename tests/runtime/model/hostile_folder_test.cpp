// Hostile model folders (docs/model-folder-limits.md): sizes past the documented caps, token
// ids out of range and files that are not regular files are refused with an error naming the
// file, the key and the value, before anything is sized from them. Runs under ASan.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include "runtime/model/checkpoint.h"
#include "runtime/model/model_limits.h"
#include "tests/runtime/model/model_test_support.h"

namespace pagedserve {
namespace {

using pagedserve::testing::copy_configs;
using pagedserve::testing::golden_model_dir;
using pagedserve::testing::read_file;
using pagedserve::testing::temp_dir;
using pagedserve::testing::write_file;
using ::testing::AllOf;
using ::testing::HasSubstr;

boost::json::object tiny_llama_config() {
  return boost::json::parse(read_file(golden_model_dir("tiny-llama") / "config.json")).as_object();
}

// parse_model_config's error for tiny-llama's config.json with `key` set to the JSON text
// `value` (written as text: 1e999 reads as infinity).
error config_error_text(const std::string& key, const std::string& value) {
  boost::json::object config = tiny_llama_config();
  config[key] = "@VALUE@";
  std::string text = boost::json::serialize(config);
  text.replace(text.find("\"@VALUE@\""), 9, value);
  result<model_config> parsed = parse_model_config(text);
  EXPECT_FALSE(parsed.ok()) << key << " = " << value << " was accepted";
  return parsed.ok() ? error{} : parsed.err();
}

error config_error(const std::string& key, const boost::json::value& value) {
  return config_error_text(key, boost::json::serialize(value));
}

TEST(hostile_config, AbsurdLayerCountIsRefusedBeforeTheWeightListIsBuilt) {
  const error e = config_error("num_hidden_layers", 1000000000000);
  EXPECT_EQ(e.code, error_code::invalid_argument);
  EXPECT_THAT(e.message, AllOf(HasSubstr("config.json"), HasSubstr("'num_hidden_layers'"),
                               HasSubstr("1000000000000"), HasSubstr("1024")));
}

TEST(hostile_config, EverySizeHasACap) {
  const std::vector<std::pair<std::string, std::int64_t>> past_caps = {
      {"vocab_size", model_limits::max_vocab_size + 1},
      {"hidden_size", model_limits::max_hidden_size * 2},
      {"intermediate_size", model_limits::max_intermediate_size + 1},
      {"num_attention_heads", 4096},
      {"num_key_value_heads", 4096},
      {"head_dim", model_limits::max_head_dim + 2},
      {"max_position_embeddings", std::int64_t{1} << 40},
      {"vocab_size", 4000000000},
  };
  for (const auto& [key, value] : past_caps) {
    const error e = config_error(key, value);
    EXPECT_THAT(e.message, AllOf(HasSubstr("'" + key + "'"), HasSubstr(std::to_string(value)),
                                 HasSubstr("above the limit")))
        << key;
  }
}

TEST(hostile_config, InfiniteRopeThetaAndEpsilonAreRefused) {
  // tiny-llama's config.json is of the 5.x form: rope_theta lives in rope_parameters.
  EXPECT_THAT(
      config_error_text("rope_parameters", R"({"rope_type": "default", "rope_theta": 1e999})")
          .message,
      AllOf(HasSubstr("'rope_theta'"), HasSubstr("inf")));
  EXPECT_THAT(config_error_text("rms_norm_eps", "1e999").message, HasSubstr("'rms_norm_eps'"));
}

TEST(hostile_config, TokenIdsPastTheCapNameTheKeyAndTheId) {
  EXPECT_THAT(config_error("bos_token_id", 4000000000).message,
              AllOf(HasSubstr("'bos_token_id'"), HasSubstr("4000000000")));
  EXPECT_THAT(config_error("eos_token_id", boost::json::array{2, -7}).message,
              AllOf(HasSubstr("'eos_token_id'"), HasSubstr("-7")));
}

TEST(hostile_config, GenerationConfigEosIdIsChecked) {
  const temp_dir dir;
  copy_configs("tiny-llama", dir.path());
  write_file(dir / "generation_config.json", R"({"eos_token_id": [2, 99999999999]})");
  result<model_config> config = load_model_config(dir.path());
  ASSERT_FALSE(config.ok());
  EXPECT_THAT(config.err().message, AllOf(HasSubstr("generation_config.json"),
                                          HasSubstr("'eos_token_id'"), HasSubstr("99999999999")));
}

// A FIFO in place of a file must not block the loader (open() of a FIFO waits for a writer).
TEST(hostile_folder, FifoInPlaceOfAFileIsRefusedWithoutBlocking) {
  const temp_dir dir;
  copy_configs("tiny-llama", dir.path());
  ASSERT_EQ(::mkfifo((dir / "model.safetensors").c_str(), 0600), 0);
  result<model_config> config = load_model_config(dir.path());
  ASSERT_TRUE(config.ok()) << config.err().message;
  result<checkpoint> weights = load_safetensors_checkpoint(dir.path(), *config);
  ASSERT_FALSE(weights.ok());
  EXPECT_THAT(weights.err().message,
              AllOf(HasSubstr("model.safetensors"), HasSubstr("not a regular file")));

  std::filesystem::remove(dir / "config.json");
  ASSERT_EQ(::mkfifo((dir / "config.json").c_str(), 0600), 0);
  result<model_config> from_fifo = load_model_config(dir.path());
  ASSERT_FALSE(from_fifo.ok());
  EXPECT_THAT(from_fifo.err().message, HasSubstr("config.json"));
}

TEST(hostile_folder, OversizedConfigFileIsRefusedBeforeItIsRead) {
  const temp_dir dir;
  copy_configs("tiny-llama", dir.path());
  // Sparse: the size is what counts, not the bytes on disk.
  std::filesystem::resize_file(dir / "config.json", model_limits::max_json_file_bytes + 1);
  result<model_config> config = load_model_config(dir.path());
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.err().code, error_code::corrupt_data);
  EXPECT_THAT(config.err().message,
              AllOf(HasSubstr("config.json"),
                    HasSubstr(std::to_string(model_limits::max_json_file_bytes + 1)),
                    HasSubstr("above the limit")));
}

}  // namespace
}  // namespace pagedserve
