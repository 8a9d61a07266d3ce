// Expected numbers come from the goldens' config.json files (written by HF transformers) and
// from the published architectures of the config/models files.
#include "runtime/model/model_config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "runtime/model/demo_model.h"
#include "runtime/model/weight_names.h"
#include "tests/runtime/model/model_test_support.h"
#include "tests/support/test_paths.h"

namespace pagedserve {
namespace {

using pagedserve::testing::copy_configs;
using pagedserve::testing::golden_model_dir;
using pagedserve::testing::read_file;
using pagedserve::testing::temp_dir;
using pagedserve::testing::write_file;
using ::testing::AllOf;
using ::testing::HasSubstr;

constexpr auto load_golden = pagedserve::testing::load_golden_config;

// A minimal valid llama config.json that tests then break one key at a time.
boost::json::object base_llama() {
  return boost::json::parse(R"({
    "model_type": "llama", "vocab_size": 1000, "hidden_size": 64, "intermediate_size": 128,
    "num_hidden_layers": 2, "num_attention_heads": 4, "max_position_embeddings": 512,
    "rms_norm_eps": 1e-5, "rope_theta": 10000.0, "torch_dtype": "float32"})")
      .as_object();
}

constexpr auto parse = pagedserve::testing::parse_config_object;

TEST(model_config, TinyLlamaMatchesConfigJson) {
  const model_config c = load_golden("tiny-llama");
  EXPECT_EQ(c.family, model_family::llama);
  EXPECT_EQ(c.model_type, "llama");
  EXPECT_EQ(c.name, "tiny-llama");
  EXPECT_EQ(c.vocab_size, 512);
  EXPECT_EQ(c.hidden_size, 128);
  EXPECT_EQ(c.intermediate_size, 344);
  EXPECT_EQ(c.num_layers, 3);
  EXPECT_EQ(c.num_heads, 4);
  EXPECT_EQ(c.num_kv_heads, 2);
  EXPECT_EQ(c.head_dim, 32);
  EXPECT_EQ(c.max_position_embeddings, 2048);
  EXPECT_DOUBLE_EQ(c.rms_norm_eps, 1e-5);
  EXPECT_EQ(c.rope.kind, rope_kind::standard);
  EXPECT_DOUBLE_EQ(c.rope.theta, 10000.0);
  EXPECT_FALSE(c.tie_word_embeddings);
  EXPECT_FALSE(c.qkv_bias);
  EXPECT_FALSE(c.o_proj_bias);
  EXPECT_FALSE(c.mlp_bias);
  EXPECT_FALSE(c.qk_norm);
  EXPECT_EQ(c.dtype, weight_dtype::f32);
  EXPECT_EQ(c.bos_token_id, 1);
  EXPECT_EQ(c.eos_token_ids, std::vector<token_id>{2});
  EXPECT_FALSE(c.sliding_window.has_value());
}

TEST(model_config, TinyLlamaBf16DiffersOnlyInDtype) {
  model_config bf16 = load_golden("tiny-llama-bf16");
  EXPECT_EQ(bf16.dtype, weight_dtype::bf16);
  model_config f32 = load_golden("tiny-llama");
  bf16.dtype = f32.dtype;
  bf16.name = f32.name;
  EXPECT_EQ(bf16, f32);
}

TEST(model_config, TinyQwen2HasQkvBiasAndTiedEmbeddings) {
  const model_config c = load_golden("tiny-qwen2");
  EXPECT_EQ(c.family, model_family::qwen2);
  EXPECT_EQ(c.vocab_size, 600);
  EXPECT_EQ(c.hidden_size, 192);
  EXPECT_EQ(c.intermediate_size, 512);
  EXPECT_EQ(c.num_layers, 2);
  EXPECT_EQ(c.num_heads, 6);
  EXPECT_EQ(c.num_kv_heads, 2);
  EXPECT_EQ(c.head_dim, 32);  // no head_dim key: 192 / 6
  EXPECT_EQ(c.max_position_embeddings, 4096);
  EXPECT_DOUBLE_EQ(c.rms_norm_eps, 1e-6);
  EXPECT_DOUBLE_EQ(c.rope.theta, 1e6);
  EXPECT_TRUE(c.tie_word_embeddings);
  EXPECT_TRUE(c.qkv_bias);
  EXPECT_FALSE(c.o_proj_bias);
  EXPECT_FALSE(c.qk_norm);
  EXPECT_FALSE(c.sliding_window.has_value());  // use_sliding_window is false
}

TEST(model_config, TinyQwen3HasQkNormAndExplicitHeadDim) {
  const model_config c = load_golden("tiny-qwen3");
  EXPECT_EQ(c.family, model_family::qwen3);
  EXPECT_EQ(c.vocab_size, 640);
  EXPECT_EQ(c.hidden_size, 128);
  EXPECT_EQ(c.intermediate_size, 384);
  EXPECT_EQ(c.num_heads, 4);
  EXPECT_EQ(c.num_kv_heads, 2);
  EXPECT_EQ(c.head_dim, 64);  // != 128 / 4
  EXPECT_EQ(c.q_size(), 256);
  EXPECT_EQ(c.kv_size(), 128);
  EXPECT_TRUE(c.qk_norm);
  EXPECT_FALSE(c.qkv_bias);
  EXPECT_TRUE(c.tie_word_embeddings);
  EXPECT_DOUBLE_EQ(c.rope.theta, 1e6);
}

// transformers 4.x writes rope as top-level rope_theta (+ rope_scaling); 5.x as rope_parameters.
TEST(model_config, LegacyRopeSpellingGivesIdenticalConfig) {
  for (const char* name : {"tiny-llama", "tiny-llama-bf16", "tiny-qwen2", "tiny-qwen3"}) {
    SCOPED_TRACE(name);
    temp_dir dir;
    copy_configs(name, dir.path());
    boost::json::object config =
        boost::json::parse(read_file(golden_model_dir(name) / "config.json")).as_object();
    const boost::json::object params = config.at("rope_parameters").as_object();
    config.erase("rope_parameters");
    config["rope_theta"] = params.at("rope_theta");
    config["rope_scaling"] = nullptr;
    config.erase("dtype");
    config["torch_dtype"] = boost::json::parse(read_file(golden_model_dir(name) / "config.json"))
                                .as_object()
                                .at("dtype");
    write_file(dir.path() / "config.json", boost::json::serialize(config));

    result<model_config> legacy = load_model_config(dir.path());
    ASSERT_TRUE(legacy.ok()) << legacy.err().message;
    model_config current = load_golden(name);
    current.name = legacy->name;
    EXPECT_EQ(*legacy, current);
  }
}

TEST(model_config, Llama3RopeScalingInLegacyForm) {
  result<model_config> c = parse_model_config(
      read_file(pagedserve::testing::source_dir() / "config/models/llama-3.2-1b.json"));
  ASSERT_TRUE(c.ok()) << c.err().message;
  EXPECT_EQ(c->rope.kind, rope_kind::llama3);
  EXPECT_DOUBLE_EQ(c->rope.theta, 500000.0);
  EXPECT_DOUBLE_EQ(c->rope.factor, 32.0);
  EXPECT_DOUBLE_EQ(c->rope.low_freq_factor, 1.0);
  EXPECT_DOUBLE_EQ(c->rope.high_freq_factor, 4.0);
  EXPECT_EQ(c->rope.original_max_position_embeddings, 8192);
}

TEST(model_config, Llama3RopeScalingInRopeParametersForm) {
  boost::json::object object = base_llama();
  object.erase("rope_theta");
  object["rope_parameters"] = boost::json::parse(R"({"rope_type": "llama3", "rope_theta": 5e5,
      "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
      "original_max_position_embeddings": 8192})");
  result<model_config> c = parse(object);
  ASSERT_TRUE(c.ok()) << c.err().message;
  EXPECT_EQ(c->rope.kind, rope_kind::llama3);
  EXPECT_DOUBLE_EQ(c->rope.theta, 5e5);
  EXPECT_DOUBLE_EQ(c->rope.factor, 8.0);
}

TEST(model_config, LinearRopeWithLegacyTypeKey) {
  boost::json::object object = base_llama();
  object["rope_scaling"] = boost::json::parse(R"({"type": "linear", "factor": 2.0})");
  result<model_config> c = parse(object);
  ASSERT_TRUE(c.ok()) << c.err().message;
  EXPECT_EQ(c->rope.kind, rope_kind::linear);
  EXPECT_DOUBLE_EQ(c->rope.factor, 2.0);
}

TEST(model_config, DefaultsWhenOptionalKeysAreAbsent) {
  result<model_config> c = parse(base_llama());
  ASSERT_TRUE(c.ok()) << c.err().message;
  EXPECT_EQ(c->num_kv_heads, 4);  // MHA: num_key_value_heads defaults to num_attention_heads
  EXPECT_EQ(c->head_dim, 16);     // 64 / 4
  EXPECT_FALSE(c->tie_word_embeddings);
  EXPECT_FALSE(c->bos_token_id.has_value());
  EXPECT_TRUE(c->eos_token_ids.empty());
}

TEST(model_config, MultiQueryAttention) {
  boost::json::object object = base_llama();
  object["num_key_value_heads"] = 1;
  result<model_config> c = parse(object);
  ASSERT_TRUE(c.ok()) << c.err().message;
  EXPECT_EQ(c->num_kv_heads, 1);
  EXPECT_EQ(c->kv_size(), 16);
}

TEST(model_config, LlamaAttentionAndMlpBias) {
  boost::json::object object = base_llama();
  object["attention_bias"] = true;
  object["mlp_bias"] = true;
  result<model_config> c = parse(object);
  ASSERT_TRUE(c.ok()) << c.err().message;
  EXPECT_TRUE(c->qkv_bias);
  EXPECT_TRUE(c->o_proj_bias);
  EXPECT_TRUE(c->mlp_bias);
}

TEST(model_config, MistralSlidingWindow) {
  boost::json::object object = base_llama();
  object["model_type"] = "mistral";
  object["sliding_window"] = 4096;
  result<model_config> c = parse(object);
  ASSERT_TRUE(c.ok()) << c.err().message;
  EXPECT_EQ(c->family, model_family::mistral);
  EXPECT_EQ(c->sliding_window, 4096);
  object["sliding_window"] = nullptr;
  EXPECT_FALSE(parse(object)->sliding_window.has_value());
}

TEST(model_config, EosListMergedWithGenerationConfig) {
  temp_dir dir;
  boost::json::object object = base_llama();
  object["eos_token_id"] = boost::json::array{7, 8};
  write_file(dir.path() / "config.json", boost::json::serialize(object));
  write_file(dir.path() / "generation_config.json",
             R"({"bos_token_id": 5, "eos_token_id": [8, 9]})");
  result<model_config> c = load_model_config(dir.path());
  ASSERT_TRUE(c.ok()) << c.err().message;
  EXPECT_EQ(c->eos_token_ids, (std::vector<token_id>{7, 8, 9}));
  EXPECT_EQ(c->bos_token_id, 5);
}

TEST(model_config, RejectsUnsupportedModelType) {
  boost::json::object object = base_llama();
  object["model_type"] = "gpt2";
  result<model_config> c = parse(object);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.err().code, error_code::unsupported);
  EXPECT_THAT(c.err().message, AllOf(HasSubstr("config.json"), HasSubstr("'gpt2'"),
                                     HasSubstr("llama, mistral, qwen2, qwen3")));
}

TEST(model_config, RejectsUnsupportedRopeType) {
  boost::json::object object = base_llama();
  object["rope_scaling"] = boost::json::parse(R"({"rope_type": "yarn", "factor": 4.0})");
  result<model_config> c = parse(object);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.err().code, error_code::unsupported);
  EXPECT_THAT(c.err().message, AllOf(HasSubstr("rope_scaling.rope_type"), HasSubstr("'yarn'"),
                                     HasSubstr("default, linear, llama3")));
}

TEST(model_config, RejectsLlama3RopeWithoutItsFactors) {
  boost::json::object object = base_llama();
  object["rope_scaling"] = boost::json::parse(R"({"rope_type": "llama3", "factor": 8.0})");
  result<model_config> c = parse(object);
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.err().message, HasSubstr("rope_scaling.low_freq_factor"));
}

TEST(model_config, MissingRequiredKeyNamesKeyAndFile) {
  for (const char* key : {"model_type", "vocab_size", "hidden_size", "intermediate_size",
                          "num_hidden_layers", "num_attention_heads", "max_position_embeddings"}) {
    SCOPED_TRACE(key);
    temp_dir dir;
    boost::json::object object = base_llama();
    object.erase(key);
    write_file(dir.path() / "config.json", boost::json::serialize(object));
    result<model_config> c = load_model_config(dir.path());
    ASSERT_FALSE(c.ok());
    EXPECT_EQ(c.err().code, error_code::not_found);
    EXPECT_THAT(c.err().message, AllOf(HasSubstr((dir.path() / "config.json").string()),
                                       HasSubstr(std::string("'") + key + "'")));
  }
}

TEST(model_config, RejectsNonJson) {
  result<model_config> c = parse_model_config("{\"model_type\": \"llama\",");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.err().code, error_code::corrupt_data);
  EXPECT_THAT(c.err().message, HasSubstr("config.json: not valid JSON"));
  EXPECT_FALSE(parse_model_config("[1, 2]").ok());
}

TEST(model_config, MissingFolderOrFileIsNotFound) {
  temp_dir dir;
  result<model_config> c = load_model_config(dir.path());
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.err().code, error_code::not_found);
  EXPECT_THAT(c.err().message, HasSubstr("config.json"));
}

TEST(model_config, RejectsInconsistentShapes) {
  auto message_for = [](const char* key, boost::json::value value) {
    boost::json::object object = base_llama();
    object[key] = std::move(value);
    result<model_config> c = parse(object);
    return c.ok() ? std::string("accepted") : c.err().message;
  };
  EXPECT_THAT(message_for("num_key_value_heads", 3), HasSubstr("must divide"));
  EXPECT_THAT(message_for("hidden_size", 0), HasSubstr("'hidden_size' must be positive"));
  EXPECT_THAT(message_for("num_hidden_layers", -1), HasSubstr("'num_hidden_layers'"));
  EXPECT_THAT(message_for("vocab_size", "big"), HasSubstr("'vocab_size' must be an integer"));
  EXPECT_THAT(message_for("torch_dtype", "float64"), HasSubstr("float32, bfloat16, float16"));
  EXPECT_THAT(message_for("hidden_act", "gelu"), HasSubstr("'hidden_act'"));
  EXPECT_THAT(message_for("head_dim", 15), HasSubstr("'head_dim' must be even"));
}

TEST(model_config, PublicModelFilesParse) {
  const std::filesystem::path models = pagedserve::testing::source_dir() / "config/models";
  result<model_config> llama1b = parse_model_config(read_file(models / "llama-3.2-1b.json"));
  ASSERT_TRUE(llama1b.ok()) << llama1b.err().message;
  EXPECT_EQ(llama1b->hidden_size, 2048);
  EXPECT_EQ(llama1b->num_layers, 16);
  EXPECT_EQ(llama1b->q_size(), 2048);
  EXPECT_EQ(llama1b->kv_size(), 512);
  EXPECT_EQ(llama1b->dtype, weight_dtype::bf16);
  EXPECT_TRUE(llama1b->tie_word_embeddings);

  result<model_config> qwen = parse_model_config(read_file(models / "qwen3-0.6b.json"));
  ASSERT_TRUE(qwen.ok()) << qwen.err().message;
  EXPECT_EQ(qwen->head_dim, 128);
  EXPECT_EQ(qwen->q_size(), 2048);
  EXPECT_TRUE(qwen->qk_norm);
  EXPECT_DOUBLE_EQ(qwen->rope.theta, 1e6);
  EXPECT_DOUBLE_EQ(qwen->rms_norm_eps, 1e-6);

  result<model_config> llama8b = parse_model_config(read_file(models / "llama-3-8b.json"));
  ASSERT_TRUE(llama8b.ok()) << llama8b.err().message;
  EXPECT_EQ(llama8b->head_dim, 128);  // 4096 / 32
  EXPECT_EQ(llama8b->intermediate_size, 14336);
  EXPECT_FALSE(llama8b->tie_word_embeddings);
  EXPECT_EQ(llama8b->rope.kind, rope_kind::standard);

  result<model_config> qwen_moe = parse_model_config(read_file(models / "qwen3-30b-a3b.json"));
  ASSERT_TRUE(qwen_moe.ok()) << qwen_moe.err().message;
  EXPECT_EQ(qwen_moe->moe.num_experts, 128);
  EXPECT_EQ(qwen_moe->moe.top_k, 8);
  EXPECT_EQ(qwen_moe->moe.expert_intermediate_size, 768);
  EXPECT_TRUE(qwen_moe->moe.renormalize);
  EXPECT_TRUE(qwen_moe->moe.is_sparse_layer(0));

  result<model_config> mixtral = parse_model_config(read_file(models / "mixtral-8x7b.json"));
  ASSERT_TRUE(mixtral.ok()) << mixtral.err().message;
  EXPECT_EQ(mixtral->moe.num_experts, 8);
  EXPECT_EQ(mixtral->moe.expert_intermediate_size, 14336);

  result<model_config> qwen2_moe = parse_model_config(read_file(models / "qwen1.5-moe-a2.7b.json"));
  ASSERT_TRUE(qwen2_moe.ok()) << qwen2_moe.err().message;
  EXPECT_EQ(qwen2_moe->moe.shared_expert_intermediate_size, 5632);
  EXPECT_FALSE(qwen2_moe->sliding_window);  // 32768, but use_sliding_window is false
}

// The parameter counts the model cards publish (total and active per token), from the
// weight list the config implies: 30.5B / 3.3B and 46.7B / 12.9B.
TEST(model_config, PublicMoeShapesHaveTheirPublishedParameterCounts) {
  const std::filesystem::path models = pagedserve::testing::source_dir() / "config/models";
  const auto count = [&](const char* file) {
    const model_config c = *parse_model_config(read_file(models / file));
    double total = 0.0;
    double active = 0.0;
    for (const tensor_spec& spec : expected_tensors(c)) {
      double numel = 1.0;
      for (std::int64_t d : spec.shape) numel *= static_cast<double>(d);
      total += numel;
      const bool expert = spec.name.find(".experts.") != std::string::npos;
      active +=
          expert ? numel * static_cast<double>(c.moe.top_k) / static_cast<double>(c.moe.num_experts)
                 : numel;
    }
    return std::pair{total * 1e-9, active * 1e-9};
  };
  const auto [qwen_total, qwen_active] = count("qwen3-30b-a3b.json");
  EXPECT_NEAR(qwen_total, 30.5, 0.1);
  EXPECT_NEAR(qwen_active, 3.3, 0.1);
  const auto [mixtral_total, mixtral_active] = count("mixtral-8x7b.json");
  EXPECT_NEAR(mixtral_total, 46.7, 0.1);
  EXPECT_NEAR(mixtral_active, 12.9, 0.1);
}

TEST(model_config, DemoModelIsASmallTiedLlama) {
  const model_config demo = demo_model_config();
  EXPECT_EQ(demo.name, "demo-random");
  EXPECT_EQ(demo.family, model_family::llama);
  EXPECT_EQ(demo.num_heads % demo.num_kv_heads, 0);
  EXPECT_EQ(demo.q_size(), demo.hidden_size);
  EXPECT_TRUE(demo.tie_word_embeddings);
}

}  // namespace
}  // namespace pagedserve
