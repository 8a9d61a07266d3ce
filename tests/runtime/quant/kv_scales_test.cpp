// read_kv_scales: the fp8 KV cache scales a checkpoint carries, under vLLM's three names
// (k_scale/v_scale, k_proj/v_proj.output_scale, the legacy kv_scale for both), from files
// written tensor by tensor; and the inconsistent cases refused.

#include "runtime/model/kv_scales.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/runtime/quant/stored_file_builder.h"

namespace pagedserve {
namespace {

using ::testing::HasSubstr;
using testing::stored_file_builder;

model_config two_layers() {
  model_config config;
  config.num_layers = 2;
  return config;
}

struct scales_fixture {
  pagedserve::testing::temp_dir dir{"kv-scales"};

  result<std::optional<kv_cache_scales>> read(const stored_file_builder& file) {
    file.write(dir.path());
    auto files = checkpoint_files::open(dir.path());
    EXPECT_TRUE(files) << files.err().message;
    return read_kv_scales(*files, two_layers());
  }
};

const std::string layer0 = "model.layers.0.self_attn.";
const std::string layer1 = "model.layers.1.self_attn.";

TEST(KvScales, ReadsEachNameVllmReads) {
  scales_fixture f;
  stored_file_builder file;  // layer 0: k_scale/v_scale (scalar F32); layer 1: output_scale
  file.add<float>(layer0 + "k_scale", "F32", {}, {0.5F})
      .add<float>(layer0 + "v_scale", "F32", {1}, {0.25F})
      .add<std::uint16_t>(layer1 + "k_proj.output_scale", "BF16", {1}, {0x4000})   // 2.0
      .add<std::uint16_t>(layer1 + "v_proj.output_scale", "BF16", {1}, {0x4080});  // 4.0
  auto scales = f.read(file);
  ASSERT_TRUE(scales) << scales.err().message;
  ASSERT_TRUE(scales->has_value());
  EXPECT_EQ((*scales)->key, (std::vector<float>{0.5F, 2.0F}));
  EXPECT_EQ((*scales)->value, (std::vector<float>{0.25F, 4.0F}));
}

TEST(KvScales, TheLegacyKvScaleServesBothKAndV) {
  scales_fixture f;
  stored_file_builder file;
  file.add<float>(layer0 + "kv_scale", "F32", {}, {0.125F})
      .add<float>(layer1 + "kv_scale", "F32", {}, {3.0F});
  auto scales = f.read(file);
  ASSERT_TRUE(scales && scales->has_value());
  EXPECT_EQ((*scales)->key, (std::vector<float>{0.125F, 3.0F}));
  EXPECT_EQ((*scales)->value, (*scales)->key);
}

TEST(KvScales, NoneIsNoScalesAndInconsistentOnesAreRefused) {
  scales_fixture f;
  stored_file_builder none;
  none.add<float>("model.norm.weight", "F32", {1}, {1.0F});
  auto absent = f.read(none);
  ASSERT_TRUE(absent);
  EXPECT_FALSE(absent->has_value());

  stored_file_builder one_layer;
  one_layer.add<float>(layer0 + "kv_scale", "F32", {}, {1.0F});
  auto partial = f.read(one_layer);
  ASSERT_FALSE(partial);
  EXPECT_THAT(partial.err().message, HasSubstr("1 of 2 layers"));

  stored_file_builder k_only;
  k_only.add<float>(layer0 + "k_scale", "F32", {}, {1.0F})
      .add<float>(layer1 + "kv_scale", "F32", {}, {1.0F});
  auto lopsided = f.read(k_only);
  ASSERT_FALSE(lopsided);
  EXPECT_THAT(lopsided.err().message, HasSubstr("layer 0 has a KV cache scale for K only"));

  stored_file_builder negative;
  negative.add<float>(layer0 + "kv_scale", "F32", {}, {-1.0F})
      .add<float>(layer1 + "kv_scale", "F32", {}, {1.0F});
  auto bad = f.read(negative);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.err().code, error_code::corrupt_data);
  EXPECT_THAT(bad.err().message, HasSubstr("'" + layer0 + "kv_scale' holds -1"));
}

}  // namespace
}  // namespace pagedserve
