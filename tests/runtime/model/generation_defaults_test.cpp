// generation_config.json as vLLM's --generation-config auto reads it: the values that differ
// from transformers' GenerationConfig defaults (the shipped demo model's file and Qwen3's
// published one), none when the file is absent, and a clear error for a bad value.

#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "runtime/model/generation_defaults.h"
#include "tests/support/temp_dir.h"
#include "tests/support/test_paths.h"

namespace pagedserve {
namespace {

using pagedserve::testing::temp_dir;

void write(const temp_dir& dir, const std::string& json) {
  std::ofstream(dir / "generation_config.json") << json;
}

TEST(GenerationDefaults, TheShippedDemoModelRecommendsTemperatureAndTopP) {
  const auto d = load_generation_defaults(
      (pagedserve::testing::source_dir() / "models" / "pagedserve-demo").string());
  ASSERT_TRUE(d.ok()) << d.err().message;
  EXPECT_EQ(d->temperature, 0.8f);
  EXPECT_EQ(d->top_p, 0.95f);
  EXPECT_FALSE(d->top_k || d->min_p || d->repetition_penalty);
  EXPECT_EQ(d->describe(), "temperature=0.8, top_p=0.95");
}

TEST(GenerationDefaults, QwensFileGivesEveryKeyButTheOnesAtTransformersDefaults) {
  temp_dir dir;
  // Qwen3-8B's generation_config.json (huggingface.co/Qwen/Qwen3-8B), plus HF-default values.
  write(dir, R"({"bos_token_id": 151643, "do_sample": true, "eos_token_id": [151645, 151643],
                 "pad_token_id": 151643, "temperature": 0.6, "top_k": 20, "top_p": 0.95,
                 "min_p": 0, "repetition_penalty": 1.0, "transformers_version": "4.51.0"})");
  const auto d = load_generation_defaults(dir.path());
  ASSERT_TRUE(d.ok()) << d.err().message;
  EXPECT_EQ(d->temperature, 0.6f);
  EXPECT_EQ(d->top_k, 20);
  EXPECT_EQ(d->top_p, 0.95f);
  EXPECT_EQ(d->min_p, 0.0f);  // transformers has no min_p default: any value counts
  EXPECT_FALSE(d->repetition_penalty.has_value());
  write(dir, R"({"temperature": 1.0, "top_k": 50, "top_p": 1.0})");
  EXPECT_TRUE(load_generation_defaults(dir.path())->empty());
}

TEST(GenerationDefaults, AbsentFileGivesNoneAndBadValuesNameTheKey) {
  temp_dir dir;
  EXPECT_TRUE(load_generation_defaults(dir.path())->empty());
  for (const auto& [json, key] : {std::pair{R"({"top_p": 1.5})", "top_p"},
                                  std::pair{R"({"temperature": "hot"})", "temperature"},
                                  std::pair{R"({"top_k": 2.5})", "top_k"},
                                  std::pair{R"({"repetition_penalty": 0})", "repetition_penalty"},
                                  std::pair{R"({"min_p": -1})", "min_p"}}) {
    write(dir, json);
    const auto d = load_generation_defaults(dir.path());
    ASSERT_FALSE(d.ok()) << json;
    EXPECT_NE(d.err().message.find(key), std::string::npos) << d.err().message;
    EXPECT_NE(d.err().message.find("generation_config.json"), std::string::npos);
  }
}

}  // namespace
}  // namespace pagedserve
