#pragma once
// model_config: the architecture of a decoder-only transformer, read from a HF config.json.
// Immutable once parsed. Covers model_type llama, mistral, qwen2 and qwen3, and the
// mixture-of-experts qwen2_moe, qwen3_moe and mixtral (moe_config.h).

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "common/types.h"
#include "runtime/model/moe_config.h"

namespace pagedserve {

enum class model_family { llama, mistral, qwen2, qwen3, qwen2_moe, qwen3_moe, mixtral };

// The families whose sparse layers route tokens to experts.
[[nodiscard]] constexpr bool has_experts(model_family family) {
  return family == model_family::qwen2_moe || family == model_family::qwen3_moe ||
         family == model_family::mixtral;
}

enum class rope_kind {
  standard,  // HF rope_type "default"
  linear,    // positions divided by factor
  llama3,    // Llama-3.1/3.2 frequency-dependent scaling
};

struct rope_config {
  rope_kind kind = rope_kind::standard;
  double theta = 10000.0;
  double factor = 1.0;                                   // linear, llama3
  double low_freq_factor = 1.0;                          // llama3
  double high_freq_factor = 4.0;                         // llama3
  std::int64_t original_max_position_embeddings = 8192;  // llama3

  friend bool operator==(const rope_config&, const rope_config&) = default;
};

// Storage type of the checkpoint's weights ("torch_dtype" / "dtype" in config.json).
enum class weight_dtype { f32, bf16, f16 };

struct model_config {
  model_family family = model_family::llama;
  std::string model_type;  // as written in config.json
  std::string name;        // display name: the checkpoint folder's name, or a built-in's name

  std::int64_t vocab_size = 0;
  std::int64_t hidden_size = 0;
  std::int64_t intermediate_size = 0;
  std::int64_t num_layers = 0;    // num_hidden_layers
  std::int64_t num_heads = 0;     // num_attention_heads
  std::int64_t num_kv_heads = 0;  // num_key_value_heads (defaults to num_heads)
  std::int64_t head_dim = 0;      // explicit or hidden_size / num_heads
  std::int64_t max_position_embeddings = 0;

  double rms_norm_eps = 1e-6;
  rope_config rope;

  bool qkv_bias = false;             // qwen2, or llama with attention_bias
  bool o_proj_bias = false;          // llama with attention_bias
  bool mlp_bias = false;             // llama mlp_bias
  bool qk_norm = false;              // qwen3: per-head RMSNorm on q and k
  bool tie_word_embeddings = false;  // lm_head shares embed_tokens
  // Set only when the config enables sliding-window attention (Mistral v0.1 style); the
  // forward attends to all positions, so callers cap the context length at this window.
  std::optional<std::int64_t> sliding_window;

  moe_config moe;  // disabled (num_experts 0) for the dense families

  weight_dtype dtype = weight_dtype::f32;

  std::optional<token_id> bos_token_id;
  std::vector<token_id> eos_token_ids;  // config.json, merged with generation_config.json

  [[nodiscard]] std::int64_t q_size() const { return num_heads * head_dim; }
  [[nodiscard]] std::int64_t kv_size() const { return num_kv_heads * head_dim; }

  friend bool operator==(const model_config&, const model_config&) = default;
};

// Parses config.json text (4.x rope_theta/rope_scaling or 5.x rope_parameters forms).
[[nodiscard]] result<model_config> parse_model_config(std::string_view json_text);
// Same, with `source_name` (a file name) at the start of every error message.
[[nodiscard]] result<model_config> parse_model_config(std::string_view json_text,
                                                      std::string_view source_name);

// Reads <dir>/config.json and, when present, <dir>/generation_config.json (eos ids).
[[nodiscard]] result<model_config> load_model_config(const std::filesystem::path& dir);

}  // namespace pagedserve
