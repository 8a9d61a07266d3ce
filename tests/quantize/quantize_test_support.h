#pragma once
// Helpers of the folder tests: the demo model, a per-test temporary folder, reading back.
#include <gtest/gtest.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "quantize/quantize_folder.h"
#include "runtime/model/safetensors_file.h"
#include "tests/support/test_paths.h"

namespace pagedserve::quantize::testing {

namespace fs = std::filesystem;

inline fs::path demo_model_dir() {
  return pagedserve::testing::source_dir() / "models" / "pagedserve-demo";
}

// The demo's linear shapes [out, in]: hidden 256, q 4 x 64, kv 2 x 64, intermediate 704.
struct linear_shape {
  const char* module;
  std::int64_t out;
  std::int64_t in;
};
inline constexpr linear_shape demo_linears[] = {
    {"self_attn.q_proj", 256, 256}, {"self_attn.k_proj", 128, 256}, {"self_attn.v_proj", 128, 256},
    {"self_attn.o_proj", 256, 256}, {"mlp.gate_proj", 704, 256},    {"mlp.up_proj", 704, 256},
    {"mlp.down_proj", 256, 704}};
inline constexpr std::int64_t demo_layers = 6;

inline std::string module_name(std::int64_t layer, const char* module) {
  return "model.layers." + std::to_string(layer) + "." + module;
}

// A fresh folder under the system's temporary directory, unique to this process and test,
// removed afterwards.
class quantize_folder_test : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string test = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    root_ = fs::temp_directory_path() / ("quantize_" + std::to_string(::getpid()) + "_" + test);
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }

  fs::path out() const { return root_ / "out"; }
  fs::path twin() const { return root_ / "twin"; }

  // Quantizes the demo model into out(); fails the test on error.
  quantize_summary write(quantize_options options) {
    auto summary = quantize_folder(demo_model_dir(), out(), options);
    EXPECT_TRUE(summary.ok()) << (summary.ok() ? "" : summary.err().message);
    return summary.ok() ? *summary : quantize_summary{};
  }

  fs::path root_;
};

inline safetensors_file open_model(const fs::path& dir) {
  auto file = safetensors_file::open(dir / "model.safetensors");
  if (!file.ok()) throw std::runtime_error(file.err().message);
  return std::move(file).value();
}

inline boost::json::object read_config(const fs::path& dir) {
  std::ifstream in(dir / "config.json");
  std::stringstream text;
  text << in.rdbuf();
  return boost::json::parse(text.str()).as_object();
}

// Checks a tensor's dtype and shape; returns it (nullptr when absent, a failure).
inline const safetensors_entry* expect_tensor(const safetensors_file& file, const std::string& name,
                                              const std::string& dtype,
                                              std::vector<std::int64_t> shape) {
  const safetensors_entry* entry = file.find(name);
  EXPECT_NE(entry, nullptr) << name;
  if (entry == nullptr) return nullptr;
  EXPECT_EQ(entry->dtype, dtype) << name;
  EXPECT_EQ(entry->shape, shape) << name;
  return entry;
}

template <class T>
T element(const safetensors_entry& entry, std::int64_t i) {
  T value{};
  std::memcpy(&value, entry.bytes.data() + i * static_cast<std::int64_t>(sizeof(T)), sizeof(T));
  return value;
}

}  // namespace pagedserve::quantize::testing
