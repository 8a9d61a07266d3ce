// The writer's files read back through the engine's own reader (runtime/model/safetensors_file).
#include "quantize/safetensors_writer.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <vector>

#include "runtime/model/safetensors_file.h"

namespace pagedserve::quantize {
namespace {

namespace fs = std::filesystem;

class safetensors_writer : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string test = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    dir_ =
        fs::temp_directory_path() / ("quantize_" + std::to_string(::getpid()) + "_writer_" + test);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path dir_;
};

TEST_F(safetensors_writer, EveryDtypeReadsBackWithItsShapeAndBytes) {
  std::vector<safetensors_tensor> tensors;
  tensors.push_back(owned_tensor("a.f32", "F32", {2, 2}, std::vector<float>{1, 2, 3, 4}));
  tensors.push_back(float_tensor("b.f16", weight_dtype::f16, {3}, std::vector<float>{1, -2, 0.5}));
  tensors.push_back(float_tensor("c.bf16", weight_dtype::bf16, {1, 1}, std::vector<float>{1}));
  tensors.push_back(owned_tensor("d.i32", "I32", {2}, std::vector<std::int32_t>{-1, 7}));
  tensors.push_back(
      owned_tensor("e.fp8", "F8_E4M3", {3}, std::vector<std::uint8_t>{0x7E, 0xFE, 1}));
  const fs::path path = dir_ / "model.safetensors";
  ASSERT_TRUE(write_safetensors(path, tensors).ok());
  EXPECT_FALSE(fs::exists(dir_ / "model.safetensors.partial"));

  auto file = safetensors_file::open(path);
  ASSERT_TRUE(file.ok()) << file.err().message;
  EXPECT_EQ(file->entries().size(), 5U);
  for (const safetensors_tensor& t : tensors) {
    const safetensors_entry* entry = file->find(t.name);
    ASSERT_NE(entry, nullptr) << t.name;
    EXPECT_EQ(entry->dtype, t.dtype);
    EXPECT_EQ(entry->shape, t.shape);
    ASSERT_EQ(entry->bytes.size(), t.bytes.size());
    EXPECT_EQ(std::memcmp(entry->bytes.data(), t.bytes.data(), t.bytes.size()), 0) << t.name;
  }
  std::uint16_t bits[3];
  std::memcpy(bits, file->find("b.f16")->bytes.data(), 6);
  EXPECT_EQ(bits[0], 0x3C00);  // 1.0
  EXPECT_EQ(bits[1], 0xC000);  // -2.0
  EXPECT_EQ(bits[2], 0x3800);  // 0.5
}

TEST_F(safetensors_writer, HeaderIsPaddedSoDataStartsEightAligned) {
  const std::vector<safetensors_tensor> tensors = {
      owned_tensor("x", "F8_E4M3", {1}, std::vector<std::uint8_t>{0x08})};
  const fs::path path = dir_ / "one.safetensors";
  ASSERT_TRUE(write_safetensors(path, tensors).ok());
  std::ifstream in(path, std::ios::binary);
  std::uint64_t header_length = 0;
  in.read(reinterpret_cast<char*>(&header_length), 8);
  EXPECT_EQ(header_length % 8, 0U);
  EXPECT_EQ(fs::file_size(path), 8 + header_length + 1);
}

TEST_F(safetensors_writer, RefusesInconsistentTensorsAndWritesNothing) {
  const fs::path path = dir_ / "bad.safetensors";
  const std::vector<safetensors_tensor> short_bytes = {
      owned_tensor("w", "F32", {2, 2}, std::vector<float>{1, 2, 3})};
  const status refused = write_safetensors(path, short_bytes);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.err().message.find("'w'"), std::string::npos);
  const std::vector<safetensors_tensor> twice = {
      owned_tensor("w", "I32", {1}, std::vector<std::int32_t>{1}),
      owned_tensor("w", "I32", {1}, std::vector<std::int32_t>{2})};
  EXPECT_FALSE(write_safetensors(path, twice).ok());
  const std::vector<safetensors_tensor> unknown = {
      owned_tensor("w", "Q4", {1}, std::vector<std::uint8_t>{1})};
  EXPECT_FALSE(write_safetensors(path, unknown).ok());
  EXPECT_FALSE(fs::exists(path));
}

}  // namespace
}  // namespace pagedserve::quantize
