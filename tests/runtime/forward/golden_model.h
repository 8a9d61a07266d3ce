#pragma once
// A golden model for forward tests: its config, checkpoint and the HF reference tensors of
// golden.safetensors (read with the model library's safetensors_file), on the CPU backend or
// another one given to load().

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "kernels/cpu/cpu_backend.h"
#include "runtime/forward/model_forward.h"
#include "runtime/model/checkpoint.h"
#include "runtime/model/safetensors_file.h"
#include "tests/support/fixtures.h"

namespace pagedserve::forward::testing {

inline constexpr int num_golden_prompts = 4;
inline constexpr std::size_t num_greedy_tokens = 24;

struct golden_prompt {
  std::vector<token_id> ids;
  std::vector<float> logits;  // [ids.size(), vocab]
  std::vector<token_id> greedy;
  std::vector<float> greedy_logits;  // [24, vocab]
};

// gtest parameter name of a golden model: "tiny-llama" -> "tiny_llama".
inline std::string model_test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = info.param;
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

inline std::vector<float> read_f32(const safetensors_file& file, const std::string& name) {
  const safetensors_entry* e = file.find(name);
  EXPECT_NE(e, nullptr) << name;
  if (e == nullptr) return {};
  EXPECT_EQ(e->dtype, "F32") << name;
  std::vector<float> out(e->bytes.size() / sizeof(float));
  std::memcpy(out.data(), e->bytes.data(), out.size() * sizeof(float));
  return out;
}

inline std::vector<token_id> read_i64_as_tokens(const safetensors_file& file,
                                                const std::string& name) {
  const safetensors_entry* e = file.find(name);
  EXPECT_NE(e, nullptr) << name;
  if (e == nullptr) return {};
  EXPECT_EQ(e->dtype, "I64") << name;
  std::vector<std::int64_t> wide(e->bytes.size() / sizeof(std::int64_t));
  std::memcpy(wide.data(), e->bytes.data(), wide.size() * sizeof(std::int64_t));
  return {wide.begin(), wide.end()};
}

struct golden_model {
  std::string name;
  model_config config;
  std::unique_ptr<kernels::backend> backend;
  std::unique_ptr<model_forward> forward;
  std::vector<golden_prompt> prompts;

  // On the CPU reference backend, or on `backend` (which must outlive the model's use).
  static golden_model load(const std::string& name,
                           std::unique_ptr<kernels::backend> backend = nullptr) {
    golden_model m;
    m.name = name;
    const auto dir = pagedserve::testing::goldens_dir() / "models" / name;
    auto config = load_model_config(dir);
    EXPECT_TRUE(config.ok()) << (config.ok() ? "" : config.err().message);
    m.config = *config;
    auto weights = load_safetensors_checkpoint(dir, m.config);
    EXPECT_TRUE(weights.ok()) << (weights.ok() ? "" : weights.err().message);
    m.backend = backend != nullptr ? std::move(backend) : kernels::make_cpu_backend();
    auto uploaded = upload_model_weights(*m.backend, m.config, *weights);
    EXPECT_TRUE(uploaded.ok()) << (uploaded.ok() ? "" : uploaded.err().message);
    m.forward = std::make_unique<model_forward>(*m.backend, m.config, std::move(*uploaded));
    auto golden = safetensors_file::open(dir / "golden.safetensors");
    EXPECT_TRUE(golden.ok()) << (golden.ok() ? "" : golden.err().message);
    for (int i = 0; i < num_golden_prompts; ++i) {
      const std::string prefix = "prompt" + std::to_string(i);
      golden_prompt p;
      p.ids = read_i64_as_tokens(*golden, prefix + ".ids");
      p.logits = read_f32(*golden, prefix + ".logits");
      p.greedy = read_i64_as_tokens(*golden, prefix + ".greedy");
      p.greedy_logits = read_f32(*golden, prefix + ".greedy_logits");
      m.prompts.push_back(std::move(p));
    }
    return m;
  }
};

}  // namespace pagedserve::forward::testing
