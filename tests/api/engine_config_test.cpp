// validate(engine_config): each rule rejects with invalid_argument and names the field and
// the value; and the names of finish_reason.

#include "api/engine_config.h"

#include <functional>

#include <gtest/gtest.h>

#include "api/engine_keys.h"
#include "api/finish_reason.h"

namespace pagedserve {
namespace {

// Applies `change` to a valid config and expects validate() to reject it with a message
// that contains every one of `words`.
void expect_rejected(const std::function<void(engine_config&)>& change,
                     std::initializer_list<std::string_view> words) {
  engine_config config;
  change(config);
  const status s = validate(config);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.err().code, error_code::invalid_argument);
  for (const std::string_view word : words) {
    EXPECT_NE(s.err().message.find(word), std::string::npos)
        << "'" << word << "' not in: " << s.err().message;
  }
}

TEST(engine_config, DefaultsAreValidWithAnAutomaticPool) {
  engine_config config;
  ASSERT_EQ(config.sched.num_blocks, 0u);
  EXPECT_TRUE(validate(config).ok());
  config.sched.num_blocks = 64;
  EXPECT_TRUE(validate(config).ok());
}

TEST(engine_config, AcceptsEachAllowedChoice) {
  engine_config config;
  config.backend = "cuda";
  config.load_format = "dummy";
  config.model_config_file = "config.json";
  config.max_n = 256;
  config.max_waiting_requests = 1;
  EXPECT_TRUE(validate(config).ok());
  config.model_config_file.clear();
  config.model_dir = "/models/x";
  config.max_n = 1;
  EXPECT_TRUE(validate(config).ok());
}

TEST(engine_config, RejectsEachBadField) {
  expect_rejected([](auto& c) { c.load_format = "safetensors"; }, {"load_format", "safetensors"});
  expect_rejected([](auto& c) { c.backend = "metal"; }, {"backend", "metal"});
  expect_rejected([](auto& c) { c.max_waiting_requests = 0; }, {"max_waiting_requests", "0"});
  expect_rejected([](auto& c) { c.max_n = 0; }, {"max_n", "0"});
  expect_rejected([](auto& c) { c.max_n = 257; }, {"max_n", "257"});
  expect_rejected(
      [](auto& c) {
        c.model_dir = "/models/a";
        c.model_config_file = "b.json";
      },
      {"model_dir", "model_config_file", "/models/a", "b.json"});
  expect_rejected([](auto& c) { c.load_format = "dummy"; },
                  {"load_format", "dummy", "model_dir", "model_config_file"});
}

TEST(engine_config, RejectsBadSchedulerFieldsEvenWithAnAutomaticPool) {
  expect_rejected([](auto& c) { c.sched.max_num_seqs = 0; }, {"max_num_seqs"});
  expect_rejected([](auto& c) { c.sched.block_size = 0; }, {"block_size"});
  expect_rejected([](auto& c) { c.sched.watermark = 1.5; }, {"watermark", "1.5"});
  expect_rejected(
      [](auto& c) {
        c.sched.num_blocks = 64;
        c.sched.max_model_len = 0;
      },
      {"max_model_len"});
}

// A key's rule lives in its row: a config built in code is refused by validate() with the
// words the same value gets as YAML or a flag.
TEST(engine_config, ACodeBuiltConfigMeetsEachKeysRuleAsText) {
  struct bad_key {
    const char* key;
    const char* text;
    std::function<void(engine_config&)> change;
  };
  const bad_key cases[] = {
      {"max_num_seqs", "0", [](auto& c) { c.sched.max_num_seqs = 0; }},
      {"max_n", "257", [](auto& c) { c.max_n = 257; }},
      {"dtype", "int4", [](auto& c) { c.dtype = "int4"; }},
      {"gpu_memory_utilization", "1.5", [](auto& c) { c.gpu_memory_utilization = 1.5; }},
      {"quantization", "bnb", [](auto& c) { c.quantization = "bnb"; }},
  };
  for (const bad_key& bad : cases) {
    engine_config as_text;
    const status parsed = find_engine_key(bad.key)->set(as_text, bad.text);
    ASSERT_FALSE(parsed.ok()) << bad.key;
    engine_config in_code;
    bad.change(in_code);
    const status checked = validate(in_code);
    ASSERT_FALSE(checked.ok()) << bad.key;
    EXPECT_EQ(checked.err().message, std::string(bad.key) + ": " + parsed.err().message);
  }
  EXPECT_EQ(validate([] {
              engine_config c;
              c.max_n = 257;
              return c;
            }())
                .err()
                .message,
            "max_n: must be at most 256, got '257'");
}

// Speculation runs on both backends (on cuda it samples on the host: plan_speculation).
TEST(engine_config, SpeculativeDecodingIsValidOnEveryBackend) {
  engine_config config;
  config.speculative.method = speculative_method::ngram;
  config.speculative.num_speculative_tokens = 4;
  EXPECT_TRUE(validate(config).ok());
  config.backend = "cuda";
  EXPECT_TRUE(validate(config).ok());
}

TEST(engine_config, Int8ActivationsAreACpuOption) {
  engine_config config;
  config.cpu_activation_dtype = "int8";
  EXPECT_TRUE(validate(config).ok());
  expect_rejected([](auto& c) { c.cpu_activation_dtype = "int4"; },
                  {"cpu_activation_dtype", "int4"});
  config.backend = "cuda";
  const status s = validate(config);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.err().code, error_code::unsupported);
  EXPECT_NE(s.err().message.find("cpu_activation_dtype int8"), std::string::npos);
}

TEST(finish_reason, NamesAsTheApiSpellsThem) {
  EXPECT_EQ(to_string(finish_reason::length), "length");
  EXPECT_EQ(to_string(finish_reason::stop), "stop");
  EXPECT_EQ(to_string(finish_reason::cancelled), "cancelled");
  EXPECT_EQ(to_string(finish_reason::error), "error");
}

}  // namespace
}  // namespace pagedserve
