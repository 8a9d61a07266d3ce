// The experts of a MoE config.json, against the goldens' config.json files (written as
// transformers writes them; ../goldens/README.md lists the spellings) and HF's modeling code:
// the expert count under either key, router renormalisation per family, the shared expert,
// dense layers among sparse ones, and refusals that name the key.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "runtime/model/checkpoint.h"
#include "runtime/model/model_config.h"
#include "runtime/model/moe_weight_names.h"
#include "runtime/model/weight_names.h"
#include "tests/runtime/model/model_test_support.h"

namespace pagedserve {
namespace {

using pagedserve::testing::golden_model_dir;
using ::testing::AllOf;
using ::testing::HasSubstr;

constexpr auto load_golden = pagedserve::testing::load_golden_config;

boost::json::object golden_json(const std::string& name) {
  return boost::json::parse(pagedserve::testing::read_file(golden_model_dir(name) / "config.json"))
      .as_object();
}

constexpr auto parse = pagedserve::testing::parse_config_object;

TEST(moe_config, Qwen3MoeReadsNumLocalExpertsAndRenormalises) {
  const model_config c = load_golden("tiny-qwen3-moe");
  EXPECT_EQ(c.family, model_family::qwen3_moe);
  EXPECT_EQ(c.moe.num_experts, 8);  // "num_local_experts", as transformers >= 5.8 writes it
  EXPECT_EQ(c.moe.top_k, 2);
  EXPECT_EQ(c.moe.expert_intermediate_size, 48);
  EXPECT_TRUE(c.moe.renormalize);
  EXPECT_FALSE(c.moe.has_shared_expert());
  EXPECT_EQ(c.head_dim, 32);  // from config, not hidden / heads = 16
  EXPECT_TRUE(c.qk_norm);
  EXPECT_FALSE(c.sliding_window);
}

TEST(moe_config, MixtralAlwaysRenormalisesWithExpertsOfIntermediateSize) {
  const model_config c = load_golden("tiny-mixtral");
  EXPECT_EQ(c.family, model_family::mixtral);
  EXPECT_EQ(c.moe.num_experts, 4);
  EXPECT_EQ(c.moe.top_k, 2);
  EXPECT_EQ(c.moe.expert_intermediate_size, 96);
  EXPECT_TRUE(c.moe.renormalize);
  EXPECT_FALSE(c.sliding_window);  // null: full attention
  EXPECT_EQ(router_tensor_name(c, 1), "model.layers.1.block_sparse_moe.gate.weight");
  EXPECT_EQ(expert_tensor_name(c, 0, 3, expert_projection::up),
            "model.layers.0.block_sparse_moe.experts.3.w3.weight");
}

TEST(moe_config, Qwen2MoeHasABiasedAttentionAndAGatedSharedExpert) {
  const model_config c = load_golden("tiny-qwen2-moe");
  EXPECT_EQ(c.family, model_family::qwen2_moe);
  EXPECT_EQ(c.moe.num_experts, 8);  // "num_experts"
  EXPECT_EQ(c.moe.top_k, 4);
  EXPECT_EQ(c.moe.expert_intermediate_size, 32);
  EXPECT_FALSE(c.moe.renormalize);
  EXPECT_EQ(c.moe.shared_expert_intermediate_size, 96);
  EXPECT_TRUE(c.qkv_bias);
  EXPECT_FALSE(c.o_proj_bias);
  EXPECT_FALSE(c.sliding_window);  // "sliding_window": 0 with use_sliding_window false
}

TEST(moe_config, FourXQwen2MoeConfigsWithoutQkvBiasKeyStillHaveBiases) {
  boost::json::object j = golden_json("tiny-qwen2-moe");
  j.erase("qkv_bias");
  EXPECT_TRUE(parse(j)->qkv_bias);
}

TEST(moe_config, EitherExpertCountKeyIsAccepted) {
  boost::json::object j = golden_json("tiny-qwen3-moe");
  j.erase("num_local_experts");
  j["num_experts"] = 6;
  EXPECT_EQ(parse(j)->moe.num_experts, 6);
  j.erase("num_experts");
  const auto missing = parse(j);
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.err().message, AllOf(HasSubstr("num_experts"), HasSubstr("missing")));
}

// Qwen2MoeDecoderLayer / Qwen3MoeDecoderLayer: sparse iff not in mlp_only_layers and
// (i + 1) % decoder_sparse_step == 0.
TEST(moe_config, DenseLayersAmongSparseOnesFollowHfsRule) {
  boost::json::object j = golden_json("tiny-qwen3-moe");
  j["num_hidden_layers"] = 6;
  j["decoder_sparse_step"] = 2;
  j["mlp_only_layers"] = boost::json::array{3};
  const model_config c = *parse(j);
  const std::vector<bool> sparse = {false, true, false, false, false, true};
  for (std::int64_t layer = 0; layer < 6; ++layer) {
    EXPECT_EQ(c.moe.is_sparse_layer(layer), sparse[static_cast<std::size_t>(layer)]) << layer;
  }
  // Dense layers keep the MLP of intermediate_size; sparse ones list a router and experts.
  std::int64_t routers = 0;
  std::int64_t dense_mlps = 0;
  for (const tensor_spec& spec : expected_tensors(c)) {
    routers += spec.name.ends_with("mlp.gate.weight") ? 1 : 0;
    if (spec.name.ends_with("mlp.down_proj.weight")) {
      ++dense_mlps;
      EXPECT_EQ(spec.shape, (std::vector<std::int64_t>{64, 96}));
    }
  }
  EXPECT_EQ(routers, 2);
  EXPECT_EQ(dense_mlps, 4);
}

TEST(moe_config, RefusalsNameTheKey) {
  const auto refused = [](const char* key, boost::json::value value, const char* what) {
    boost::json::object j = golden_json("tiny-qwen3-moe");
    j[key] = std::move(value);
    const auto c = parse(j);
    ASSERT_FALSE(c.ok()) << key;
    EXPECT_THAT(c.err().message, AllOf(HasSubstr(key), HasSubstr(what)));
  };
  refused("num_experts_per_tok", 9, "[1, 8]");  // more than the experts
  refused("num_experts_per_tok", 0, "[1, 8]");
  refused("num_local_experts", 1 << 20, "[1, 4096]");
  refused("moe_intermediate_size", 0, "moe_intermediate_size");
  refused("decoder_sparse_step", 0, "decoder_sparse_step");
  refused("mlp_only_layers", boost::json::array{2}, "[0, 1]");

  boost::json::object many = golden_json("tiny-qwen3-moe");  // within each cap, not together
  many["num_local_experts"] = 4096;
  many["num_hidden_layers"] = 64;
  const auto too_many = parse(many);
  ASSERT_FALSE(too_many.ok());
  EXPECT_THAT(too_many.err().message, HasSubstr("times num_hidden_layers"));
}

// A folder whose checkpoint lacks one expert's projection, or has a router of the wrong
// shape, is refused with the tensor's name.
TEST(moe_checkpoint, MissingOrMisshapenExpertTensorsAreNamed) {
  const pagedserve::testing::temp_dir dir("pagedserve-moe-folder");
  pagedserve::testing::copy_configs("tiny-mixtral", dir.path());
  const model_config config = load_golden("tiny-mixtral");
  const auto golden = pagedserve::testing::raw_safetensors::read(golden_model_dir("tiny-mixtral") /
                                                                 "model.safetensors");

  auto missing = golden;
  const std::string expert = "model.layers.1.block_sparse_moe.experts.2.w2.weight";
  ASSERT_EQ(missing.header.erase(expert), 1U);
  missing.write(dir.path() / "model.safetensors");
  const auto without = load_safetensors_checkpoint(dir.path(), config);
  ASSERT_FALSE(without.ok());
  EXPECT_THAT(without.err().message, HasSubstr(expert));

  auto misshapen = golden;
  const std::string router = "model.layers.0.block_sparse_moe.gate.weight";
  misshapen.header.at(router).as_object()["shape"] = boost::json::array{2, 128};  // same bytes
  misshapen.write(dir.path() / "model.safetensors");
  const auto wrong = load_safetensors_checkpoint(dir.path(), config);
  ASSERT_FALSE(wrong.ok());
  EXPECT_THAT(wrong.err().message, HasSubstr(router));
}

}  // namespace
}  // namespace pagedserve
