// Loads the goldens' HF checkpoints and compares every tensor with bytes read from the file by
// the test's own minimal reader (model_test_support.h), not by the loader.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <set>

#include "runtime/model/checkpoint.h"
#include "runtime/model/dtype.h"
#include "runtime/model/weight_names.h"
#include "tests/runtime/model/model_test_support.h"

namespace pagedserve {
namespace {

using pagedserve::testing::copy_configs;
using pagedserve::testing::golden_model_dir;
using pagedserve::testing::raw_safetensors;
using pagedserve::testing::read_file;
using pagedserve::testing::temp_dir;
using pagedserve::testing::write_file;

const char* const golden_models[] = {"tiny-llama",    "tiny-llama-bf16", "tiny-qwen2",
                                     "tiny-qwen3",    "tiny-qwen3-moe",  "tiny-mixtral",
                                     "tiny-qwen2-moe"};

struct loaded_model {
  model_config config;
  checkpoint weights;
};

loaded_model load(const std::filesystem::path& dir) {
  result<model_config> config = load_model_config(dir);
  EXPECT_TRUE(config.ok()) << config.err().message;
  result<checkpoint> weights = load_safetensors_checkpoint(dir, *config);
  EXPECT_TRUE(weights.ok()) << (weights.ok() ? "" : weights.err().message);
  if (!weights.ok()) return {*config, checkpoint{}};
  return {*config, std::move(weights).value()};
}

std::string_view view(std::span<const std::byte> bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

// Every tensor equals the file's bytes at its data_offsets, with the header's dtype and shape.
void expect_matches_file(const checkpoint& weights, const raw_safetensors& raw) {
  for (const auto& [name, tensor] : weights.tensors()) {
    SCOPED_TRACE(name);
    const boost::json::object& entry = raw.header.at(name).as_object();
    const auto& offsets = entry.at("data_offsets").as_array();
    const auto begin = static_cast<std::size_t>(offsets[0].as_int64());
    const auto end = static_cast<std::size_t>(offsets[1].as_int64());
    EXPECT_EQ(view(tensor.bytes), std::string_view(raw.data).substr(begin, end - begin));
    std::vector<std::int64_t> shape;
    for (const auto& extent : entry.at("shape").as_array()) shape.push_back(extent.as_int64());
    EXPECT_EQ(tensor.shape, shape);
    const std::string dtype(entry.at("dtype").as_string());
    EXPECT_EQ(tensor.dtype, dtype == "BF16" ? weight_dtype::bf16 : weight_dtype::f32);
  }
}

TEST(safetensors_checkpoint, GoldensLoadWithExactlyTheExpectedTensors) {
  for (const char* name : golden_models) {
    SCOPED_TRACE(name);
    const loaded_model model = load(golden_model_dir(name));
    std::set<std::string> expected;
    for (const tensor_spec& spec : expected_tensors(model.config)) {
      expected.insert(spec.name);
      const host_tensor* tensor = model.weights.find(spec.name);
      ASSERT_NE(tensor, nullptr) << spec.name;
      EXPECT_EQ(tensor->shape, spec.shape);
    }
    EXPECT_EQ(model.weights.tensors().size(), expected.size());
    expect_matches_file(model.weights,
                        raw_safetensors::read(golden_model_dir(name) / "model.safetensors"));
  }
}

TEST(safetensors_checkpoint, FamilySpecificTensors) {
  const loaded_model llama = load(golden_model_dir("tiny-llama"));
  EXPECT_NE(llama.weights.find("lm_head.weight"), nullptr);
  EXPECT_EQ(llama.weights.find("model.layers.0.self_attn.q_proj.bias"), nullptr);

  const loaded_model qwen2 = load(golden_model_dir("tiny-qwen2"));
  EXPECT_EQ(qwen2.weights.find("lm_head.weight"), nullptr);  // tied
  const host_tensor* k_bias = qwen2.weights.find("model.layers.1.self_attn.k_proj.bias");
  ASSERT_NE(k_bias, nullptr);
  EXPECT_EQ(k_bias->shape, std::vector<std::int64_t>{64});
  EXPECT_EQ(qwen2.weights.find("model.layers.0.self_attn.o_proj.bias"), nullptr);

  const loaded_model qwen3 = load(golden_model_dir("tiny-qwen3"));
  const host_tensor* q_norm = qwen3.weights.find("model.layers.1.self_attn.q_norm.weight");
  ASSERT_NE(q_norm, nullptr);
  EXPECT_EQ(q_norm->shape, std::vector<std::int64_t>{64});
  EXPECT_EQ(qwen3.weights.find("model.layers.0.self_attn.o_proj.weight")->shape,
            (std::vector<std::int64_t>{128, 256}));
}

// A few values read with ifstream at hand-computed file positions, decoded by hand.
TEST(safetensors_checkpoint, SpotValuesMatchAnIndependentRead) {
  for (const char* name : {"tiny-llama", "tiny-llama-bf16"}) {
    SCOPED_TRACE(name);
    const std::filesystem::path file = golden_model_dir(name) / "model.safetensors";
    const loaded_model model = load(golden_model_dir(name));
    const raw_safetensors raw = raw_safetensors::read(file);
    const std::size_t data_start = std::filesystem::file_size(file) - raw.data.size();
    const std::string tensor_name = "model.layers.2.mlp.down_proj.weight";
    const host_tensor& tensor = *model.weights.find(tensor_name);
    std::vector<float> values(static_cast<std::size_t>(tensor.numel()));
    convert_to_f32(tensor, values);
    const auto begin = static_cast<std::size_t>(
        raw.header.at(tensor_name).at("data_offsets").as_array()[0].as_int64());
    std::ifstream in(file, std::ios::binary);
    for (std::size_t index :
         {std::size_t{0}, std::size_t{1}, std::size_t{4321}, values.size() - 1}) {
      float expected = 0.0F;
      if (tensor.dtype == weight_dtype::bf16) {
        unsigned char pair[2] = {};
        in.seekg(static_cast<std::streamoff>(data_start + begin + 2 * index));
        in.read(reinterpret_cast<char*>(pair), 2);
        const std::uint32_t widened =
            (std::uint32_t{pair[1]} << 24) | (std::uint32_t{pair[0]} << 16);
        std::memcpy(&expected, &widened, sizeof expected);
      } else {
        in.seekg(static_cast<std::streamoff>(data_start + begin + 4 * index));
        in.read(reinterpret_cast<char*>(&expected), 4);
      }
      EXPECT_EQ(values[index], expected) << "element " << index;
      EXPECT_NE(expected, 0.0F);  // random init: a zero would hint at reading the wrong place
    }
  }
}

TEST(safetensors_checkpoint, ShardedCheckpointLoadsLikeTheSingleFile) {
  temp_dir dir;
  copy_configs("tiny-llama", dir.path());
  const raw_safetensors whole =
      raw_safetensors::read(golden_model_dir("tiny-llama") / "model.safetensors");
  // Shard 1: tensors of layer 0 and the embedding; shard 2: everything else.
  raw_safetensors shards[2];
  boost::json::object weight_map;
  for (const auto& [key, value] : whole.header) {
    if (key == "__metadata__") continue;
    const std::string name(key);
    const int shard =
        name.starts_with("model.layers.0.") || name == "model.embed_tokens.weight" ? 0 : 1;
    const auto& offsets = value.at("data_offsets").as_array();
    const auto begin = static_cast<std::size_t>(offsets[0].as_int64());
    const auto end = static_cast<std::size_t>(offsets[1].as_int64());
    boost::json::object entry = value.as_object();
    entry["data_offsets"] =
        boost::json::array{shards[shard].data.size(), shards[shard].data.size() + end - begin};
    shards[shard].data += whole.data.substr(begin, end - begin);
    shards[shard].header[key] = entry;
    weight_map[key] =
        shard == 0 ? "model-00001-of-00002.safetensors" : "model-00002-of-00002.safetensors";
  }
  shards[0].write(dir.path() / "model-00001-of-00002.safetensors");
  shards[1].write(dir.path() / "model-00002-of-00002.safetensors");
  write_file(dir.path() / "model.safetensors.index.json",
             boost::json::serialize(boost::json::object{{"metadata", boost::json::object{}},
                                                        {"weight_map", weight_map}}));
  const loaded_model sharded = load(dir.path());
  const loaded_model single = load(golden_model_dir("tiny-llama"));
  ASSERT_EQ(sharded.weights.tensors().size(), single.weights.tensors().size());
  for (const auto& [name, tensor] : single.weights.tensors()) {
    EXPECT_EQ(view(sharded.weights.find(name)->bytes), view(tensor.bytes)) << name;
  }
}

TEST(safetensors_checkpoint, UnalignedDataIsCopiedToAlignedMemory) {
  temp_dir dir;
  copy_configs("tiny-llama", dir.path());
  const raw_safetensors whole =
      raw_safetensors::read(golden_model_dir("tiny-llama") / "model.safetensors");
  // An odd header length puts every tensor at an odd file offset.
  std::string json = boost::json::serialize(whole.header);
  if ((8 + json.size()) % 2 == 0) json += ' ';
  write_file(dir.path() / "model.safetensors",
             raw_safetensors::length_prefix(json.size()) + json + whole.data);
  const loaded_model model = load(dir.path());
  ASSERT_FALSE(model.weights.tensors().empty());
  for (const auto& [name, tensor] : model.weights.tensors()) {
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(tensor.bytes.data()) % 4, 0U) << name;
  }
  expect_matches_file(model.weights, whole);
}

TEST(safetensors_checkpoint, ExtraTensorsAreIgnored) {
  temp_dir dir;
  copy_configs("tiny-qwen2", dir.path());
  raw_safetensors raw = raw_safetensors::read(golden_model_dir("tiny-qwen2") / "model.safetensors");
  const std::size_t end = raw.data.size();
  raw.data += std::string(16 + 8, '\0');
  raw.header["model.layers.0.self_attn.rotary_emb.inv_freq"] =
      boost::json::object{{"dtype", "F32"},
                          {"shape", boost::json::array{4}},
                          {"data_offsets", boost::json::array{end, end + 16}}};
  raw.header["some.counter"] =
      boost::json::object{{"dtype", "I64"},
                          {"shape", boost::json::array{1}},
                          {"data_offsets", boost::json::array{end + 16, end + 24}}};
  raw.write(dir.path() / "model.safetensors");
  const loaded_model model = load(dir.path());
  EXPECT_EQ(model.weights.find("some.counter"), nullptr);
  EXPECT_EQ(model.weights.find("model.layers.0.self_attn.rotary_emb.inv_freq"), nullptr);
  EXPECT_EQ(model.weights.tensors().size(), expected_tensors(model.config).size());
}

// No golden is stored in f16, so the test writes a tiny one: every element of every tensor is
// the half 0x3C00 (1.0) except the first, which is 0x0001 (2^-24, a subnormal).
TEST(safetensors_checkpoint, Float16CheckpointLoadsAndWidens) {
  temp_dir dir;
  write_file(dir.path() / "config.json", R"({"model_type": "llama", "vocab_size": 8,
      "hidden_size": 4, "intermediate_size": 6, "num_hidden_layers": 1,
      "num_attention_heads": 2, "num_key_value_heads": 1, "max_position_embeddings": 16,
      "torch_dtype": "float16", "tie_word_embeddings": true})");
  const model_config config = *load_model_config(dir.path());
  raw_safetensors raw;
  for (const tensor_spec& spec : expected_tensors(config)) {
    std::int64_t numel = 1;
    for (std::int64_t extent : spec.shape) numel *= extent;
    const std::size_t begin = raw.data.size();
    raw.data += std::string("\x01\x00", 2);
    for (std::int64_t i = 1; i < numel; ++i) raw.data += std::string("\x00\x3C", 2);
    raw.header[spec.name] =
        boost::json::object{{"dtype", "F16"},
                            {"shape", boost::json::value_from(spec.shape)},
                            {"data_offsets", boost::json::array{begin, raw.data.size()}}};
  }
  raw.write(dir.path() / "model.safetensors");
  const loaded_model model = load(dir.path());
  const host_tensor& up = *model.weights.find("model.layers.0.mlp.up_proj.weight");
  EXPECT_EQ(up.dtype, weight_dtype::f16);
  EXPECT_EQ(up.shape, (std::vector<std::int64_t>{6, 4}));
  const std::vector<float> v = [&] {
    std::vector<float> out(24);
    convert_to_f32(up, out);
    return out;
  }();
  EXPECT_EQ(v[0], 0x1.0p-24F);
  for (std::size_t i = 1; i < v.size(); ++i) EXPECT_EQ(v[i], 1.0F) << i;
}

}  // namespace
}  // namespace pagedserve
