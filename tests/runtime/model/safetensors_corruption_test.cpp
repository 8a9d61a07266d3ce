// Damaged checkpoints made by the test from a real goldens checkpoint: each must give an error
// naming the file (and the tensor, where one is at fault), never a crash. Runs under ASan.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>

#include "runtime/model/checkpoint.h"
#include "tests/runtime/model/model_test_support.h"

namespace pagedserve {
namespace {

using pagedserve::testing::copy_configs;
using pagedserve::testing::golden_model_dir;
using pagedserve::testing::raw_safetensors;
using pagedserve::testing::read_file;
using pagedserve::testing::temp_dir;
using pagedserve::testing::write_file;
using ::testing::AllOf;
using ::testing::HasSubstr;

class corrupt_checkpoint : public ::testing::Test {
 protected:
  void SetUp() override {
    copy_configs("tiny-llama", dir_.path());
    original_ = raw_safetensors::read(golden_model_dir("tiny-llama") / "model.safetensors");
  }

  [[nodiscard]] std::filesystem::path file() const { return dir_.path() / "model.safetensors"; }
  [[nodiscard]] std::string file_name() const { return file().string(); }

  // Writes the golden file with `edit` applied to its header and data.
  void write_edited(const std::function<void(raw_safetensors&)>& edit) {
    raw_safetensors raw = original_;
    edit(raw);
    raw.write(file());
  }

  boost::json::object& entry(raw_safetensors& raw, const std::string& name) {
    return raw.header.at(name).as_object();
  }

  // The load must fail; returns the error.
  error load_error() {
    result<model_config> config = load_model_config(dir_.path());
    EXPECT_TRUE(config.ok());
    result<checkpoint> weights = load_safetensors_checkpoint(dir_.path(), *config);
    EXPECT_FALSE(weights.ok()) << "a damaged checkpoint loaded";
    return weights.ok() ? error{} : weights.err();
  }

  temp_dir dir_;
  raw_safetensors original_;
};

TEST_F(corrupt_checkpoint, TruncatedData) {
  const std::string whole = original_.bytes();
  write_file(file(), whole.substr(0, whole.size() / 2));
  const error e = load_error();
  EXPECT_EQ(e.code, error_code::corrupt_data);
  EXPECT_THAT(e.message, AllOf(HasSubstr(file_name()), HasSubstr("tensor '"),
                               HasSubstr("past the end of the data section")));
}

TEST_F(corrupt_checkpoint, FileShorterThanTheLengthPrefix) {
  write_file(file(), std::string("\x10\x00\x00", 3));
  EXPECT_THAT(load_error().message, AllOf(HasSubstr(file_name()), HasSubstr("too small")));
  write_file(file(), "");
  EXPECT_THAT(load_error().message, AllOf(HasSubstr(file_name()), HasSubstr("too small")));
}

TEST_F(corrupt_checkpoint, HeaderLengthBeyondTheFile) {
  std::string bytes = original_.bytes();
  bytes.replace(0, 8, raw_safetensors::length_prefix(bytes.size()));
  write_file(file(), bytes);
  EXPECT_THAT(load_error().message, AllOf(HasSubstr(file_name()), HasSubstr("header length")));
  bytes.replace(0, 8, std::string(8, '\xFF'));
  write_file(file(), bytes);
  EXPECT_THAT(load_error().message, AllOf(HasSubstr(file_name()), HasSubstr("header length")));
}

TEST_F(corrupt_checkpoint, GarbageHeader) {
  std::string bytes = original_.bytes();
  bytes.replace(8, 12, "{not json!!!");
  write_file(file(), bytes);
  const error e = load_error();
  EXPECT_EQ(e.code, error_code::corrupt_data);
  EXPECT_THAT(e.message, AllOf(HasSubstr(file_name()), HasSubstr("not a JSON object")));
}

TEST_F(corrupt_checkpoint, HeaderEntryOfWrongType) {
  write_edited([](raw_safetensors& raw) { raw.header["model.norm.weight"] = 42; });
  EXPECT_THAT(load_error().message,
              AllOf(HasSubstr(file_name()), HasSubstr("'model.norm.weight'")));
}

TEST_F(corrupt_checkpoint, OffsetsPastTheEnd) {
  write_edited([&](raw_safetensors& raw) {
    const auto size = raw.data.size();
    entry(raw, "model.norm.weight")["data_offsets"] = boost::json::array{size - 256, size + 256};
  });
  EXPECT_THAT(load_error().message, AllOf(HasSubstr(file_name()), HasSubstr("'model.norm.weight'"),
                                          HasSubstr("past the end")));
}

TEST_F(corrupt_checkpoint, NegativeOrReversedOffsets) {
  write_edited([&](raw_safetensors& raw) {
    entry(raw, "model.norm.weight")["data_offsets"] = boost::json::array{-4, 508};
  });
  EXPECT_THAT(load_error().message, AllOf(HasSubstr("'model.norm.weight'"), HasSubstr("invalid")));
  write_edited([&](raw_safetensors& raw) {
    entry(raw, "model.norm.weight")["data_offsets"] = boost::json::array{1024, 512};
  });
  EXPECT_THAT(load_error().message, AllOf(HasSubstr("'model.norm.weight'"), HasSubstr("invalid")));
}

TEST_F(corrupt_checkpoint, OverlappingOffsets) {
  write_edited([&](raw_safetensors& raw) {
    // lm_head occupies [0, 262144); move the final norm (512 bytes) into its middle.
    entry(raw, "model.norm.weight")["data_offsets"] = boost::json::array{1000, 1512};
  });
  const error e = load_error();
  EXPECT_EQ(e.code, error_code::corrupt_data);
  EXPECT_THAT(e.message, AllOf(HasSubstr(file_name()), HasSubstr("overlap"),
                               HasSubstr("'model.norm.weight'"), HasSubstr("'lm_head.weight'")));
}

TEST_F(corrupt_checkpoint, UnknownDtypeString) {
  write_edited([&](raw_safetensors& raw) { entry(raw, "model.norm.weight")["dtype"] = "F33"; });
  EXPECT_THAT(load_error().message,
              AllOf(HasSubstr(file_name()), HasSubstr("'model.norm.weight'"), HasSubstr("'F33'")));
}

TEST_F(corrupt_checkpoint, UnsupportedDtypeOfAnExpectedTensor) {
  // I32 has F32's element size, so only the dtype itself is wrong.
  write_edited([&](raw_safetensors& raw) { entry(raw, "model.norm.weight")["dtype"] = "I32"; });
  const error e = load_error();
  EXPECT_EQ(e.code, error_code::unsupported);
  EXPECT_THAT(e.message, AllOf(HasSubstr(file_name()), HasSubstr("'model.norm.weight'"),
                               HasSubstr("'I32'"), HasSubstr("F32, BF16, F16")));
}

TEST_F(corrupt_checkpoint, ShapeDisagreesWithOffsets) {
  write_edited([&](raw_safetensors& raw) {
    entry(raw, "model.embed_tokens.weight")["shape"] = boost::json::array{512, 127};
  });
  EXPECT_THAT(load_error().message,
              AllOf(HasSubstr(file_name()), HasSubstr("'model.embed_tokens.weight'"),
                    HasSubstr("[512, 127]")));
}

TEST_F(corrupt_checkpoint, OverflowingShape) {
  write_edited([&](raw_safetensors& raw) {
    entry(raw, "model.norm.weight")["shape"] =
        boost::json::array{std::int64_t{1} << 40, std::int64_t{1} << 40};
  });
  EXPECT_THAT(load_error().message,
              AllOf(HasSubstr("'model.norm.weight'"), HasSubstr("overflows")));
}

TEST_F(corrupt_checkpoint, ShapeDisagreesWithConfig) {
  // Same byte count, transposed: consistent in itself but not what the config implies.
  write_edited([&](raw_safetensors& raw) {
    entry(raw, "model.layers.1.mlp.gate_proj.weight")["shape"] = boost::json::array{128, 344};
  });
  const error e = load_error();
  EXPECT_THAT(e.message,
              AllOf(HasSubstr(file_name()), HasSubstr("'model.layers.1.mlp.gate_proj.weight'"),
                    HasSubstr("[128, 344]"), HasSubstr("[344, 128]")));
}

TEST_F(corrupt_checkpoint, MissingTensor) {
  write_edited(
      [](raw_safetensors& raw) { raw.header.erase("model.layers.2.self_attn.v_proj.weight"); });
  const error e = load_error();
  EXPECT_EQ(e.code, error_code::not_found);
  EXPECT_THAT(e.message, AllOf(HasSubstr(file_name()),
                               HasSubstr("'model.layers.2.self_attn.v_proj.weight' is missing")));
}

TEST_F(corrupt_checkpoint, NoWeightFiles) {
  const error e = load_error();
  EXPECT_EQ(e.code, error_code::not_found);
  EXPECT_THAT(e.message, AllOf(HasSubstr(dir_.path().string()), HasSubstr("model.safetensors")));
}

class corrupt_sharded_checkpoint : public corrupt_checkpoint {
 protected:
  // One real shard holding everything; the index may name more.
  void write_index(const boost::json::object& weight_map) {
    original_.write(dir_.path() / "model-00001-of-00002.safetensors");
    write_file(dir_.path() / "model.safetensors.index.json",
               boost::json::serialize(boost::json::object{{"weight_map", weight_map}}));
  }
  boost::json::object full_map() const {
    boost::json::object map;
    for (const auto& [key, value] : original_.header) {
      if (key != "__metadata__") map[key] = "model-00001-of-00002.safetensors";
    }
    return map;
  }
};

TEST_F(corrupt_sharded_checkpoint, IndexNamesAMissingShard) {
  boost::json::object map = full_map();
  map["model.norm.weight"] = "model-00002-of-00002.safetensors";
  write_index(map);
  const error e = load_error();
  EXPECT_EQ(e.code, error_code::not_found);
  EXPECT_THAT(e.message,
              AllOf(HasSubstr("model-00002-of-00002.safetensors"),
                    HasSubstr("model.safetensors.index.json"), HasSubstr("'model.norm.weight'")));
}

TEST_F(corrupt_sharded_checkpoint, IndexLacksATensor) {
  boost::json::object map = full_map();
  map.erase("model.layers.0.mlp.up_proj.weight");
  write_index(map);
  EXPECT_THAT(load_error().message, AllOf(HasSubstr("model.safetensors.index.json"),
                                          HasSubstr("'model.layers.0.mlp.up_proj.weight'")));
}

TEST_F(corrupt_sharded_checkpoint, ShardLacksATensorTheIndexPlacesThere) {
  boost::json::object map = full_map();
  map["model.layers.9.extra.weight"] = "model-00001-of-00002.safetensors";  // unused: fine
  original_.header.erase("model.norm.weight");
  write_index(map);
  EXPECT_THAT(load_error().message, AllOf(HasSubstr("model-00001-of-00002.safetensors"),
                                          HasSubstr("'model.norm.weight' is missing")));
}

TEST_F(corrupt_sharded_checkpoint, ShardNameOutsideTheFolder) {
  boost::json::object map = full_map();
  map["model.norm.weight"] = "../model.safetensors";
  write_index(map);
  EXPECT_THAT(load_error().message,
              AllOf(HasSubstr("model.safetensors.index.json"), HasSubstr("'model.norm.weight'")));
}

TEST_F(corrupt_sharded_checkpoint, IndexIsNotJson) {
  write_file(dir_.path() / "model.safetensors.index.json", "weight_map: {}");
  EXPECT_THAT(load_error().message,
              AllOf(HasSubstr("model.safetensors.index.json"), HasSubstr("not valid JSON")));
}

}  // namespace
}  // namespace pagedserve
