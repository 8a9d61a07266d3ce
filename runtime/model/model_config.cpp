#include "runtime/model/model_config.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "runtime/model/json_fields.h"
#include "runtime/model/model_limits.h"
#include "runtime/model/moe_parse.h"
#include "runtime/model/rope_parse.h"

namespace pagedserve {
namespace {

using detail::json_fields;

constexpr std::string_view default_source = "config.json";

std::optional<model_family> family_of(std::string_view model_type) {
  if (model_type == "llama") return model_family::llama;
  if (model_type == "mistral") return model_family::mistral;
  if (model_type == "qwen2") return model_family::qwen2;
  if (model_type == "qwen3") return model_family::qwen3;
  if (model_type == "qwen2_moe") return model_family::qwen2_moe;
  if (model_type == "qwen3_moe") return model_family::qwen3_moe;
  if (model_type == "mixtral") return model_family::mixtral;
  return std::nullopt;
}

weight_dtype read_dtype(json_fields& fields) {
  const char* key = fields.has("dtype") ? "dtype" : "torch_dtype";
  const std::string name = fields.optional_string(key).value_or("float32");
  if (name == "float32") return weight_dtype::f32;
  if (name == "bfloat16") return weight_dtype::bf16;
  if (name == "float16") return weight_dtype::f16;
  fields.fail(error_code::unsupported, key,
              "is '" + name + "', which is not supported (supported: float32, bfloat16, float16)");
  return weight_dtype::f32;
}

// Biases, norms and windows: the places where the families differ (HF modeling code).
void read_family_features(json_fields& fields, model_config& config) {
  switch (config.family) {
    case model_family::llama:
      config.qkv_bias = config.o_proj_bias = fields.bool_or("attention_bias", false);
      config.mlp_bias = fields.bool_or("mlp_bias", false);
      break;
    case model_family::mistral:
    case model_family::mixtral:
      if (auto window = fields.optional_int("sliding_window")) config.sliding_window = window;
      break;
    case model_family::qwen2:
    case model_family::qwen3:
    case model_family::qwen2_moe:
    case model_family::qwen3_moe:
      if (config.family == model_family::qwen2) {
        config.qkv_bias = true;  // Qwen2Attention: q/k/v always biased, o_proj never
      } else if (config.family == model_family::qwen2_moe) {
        // 5.x writes "qkv_bias": true; 4.x configs have no key and the biases are always there.
        config.qkv_bias = fields.bool_or("qkv_bias", true);
      } else {
        config.qkv_bias = config.o_proj_bias = fields.bool_or("attention_bias", false);
        config.qk_norm = true;
      }
      if (fields.bool_or("use_sliding_window", false)) {
        config.sliding_window = fields.optional_int("sliding_window");
      }
      break;
  }
}

std::vector<token_id> to_token_ids(json_fields& fields, std::string_view key,
                                   const std::vector<std::int64_t>& ids) {
  std::vector<token_id> out;
  for (std::int64_t id : ids) {
    if (id < 0 || id > model_limits::max_token_id) {
      fields.fail(error_code::invalid_argument, key,
                  fmt::format("holds id {}, outside [0, {}]", id, model_limits::max_token_id));
      return {};
    }
    out.push_back(static_cast<token_id>(id));
  }
  return out;
}

void read_token_ids(json_fields& fields, model_config& config) {
  if (auto bos = fields.optional_int("bos_token_id")) {
    std::vector<token_id> ids = to_token_ids(fields, "bos_token_id", {*bos});
    if (!ids.empty()) config.bos_token_id = ids.front();
  }
  config.eos_token_ids =
      to_token_ids(fields, "eos_token_id", fields.int_or_int_list("eos_token_id"));
}

void read_shape(json_fields& fields, model_config& config) {
  config.vocab_size = fields.required_int("vocab_size");
  config.hidden_size = fields.required_int("hidden_size");
  config.intermediate_size = fields.required_int("intermediate_size");
  config.num_layers = fields.required_int("num_hidden_layers");
  config.num_heads = fields.required_int("num_attention_heads");
  config.num_kv_heads = fields.optional_int("num_key_value_heads").value_or(config.num_heads);
  config.max_position_embeddings = fields.required_int("max_position_embeddings");
  if (fields.has("head_dim")) {
    config.head_dim = fields.required_int("head_dim");
  } else if (config.num_heads > 0 && config.hidden_size % config.num_heads != 0) {
    fields.fail(error_code::invalid_argument, "head_dim",
                "is missing and hidden_size is not a multiple of num_attention_heads");
  } else if (config.num_heads > 0) {
    config.head_dim = config.hidden_size / config.num_heads;
  }
}

void check_positive(json_fields& fields, std::string_view key, double value) {
  if (!(value > 0)) fields.fail(error_code::invalid_argument, key, "must be positive");
}

// A finite positive number: an infinite rope_theta or epsilon would poison every activation.
void check_positive_finite(json_fields& fields, std::string_view key, double value) {
  if (!(value > 0) || !std::isfinite(value)) {
    fields.fail(error_code::invalid_argument, key,
                fmt::format("is {}; it must be a finite positive number", value));
  }
}

void check_cap(json_fields& fields, std::string_view key, std::int64_t value, std::int64_t cap) {
  if (value > cap) {
    fields.fail(error_code::invalid_argument, key,
                fmt::format("is {}, above the limit {} (docs/model-folder-limits.md)", value, cap));
  }
}

// The hard caps of model_limits.h, checked before anything is sized from the shape (the
// weight list has num_hidden_layers entries per layer, the embedding vocab_size rows).
void check_caps(json_fields& fields, const model_config& config) {
  check_cap(fields, "vocab_size", config.vocab_size, model_limits::max_vocab_size);
  check_cap(fields, "hidden_size", config.hidden_size, model_limits::max_hidden_size);
  check_cap(fields, "intermediate_size", config.intermediate_size,
            model_limits::max_intermediate_size);
  check_cap(fields, "num_hidden_layers", config.num_layers, model_limits::max_num_layers);
  check_cap(fields, "num_attention_heads", config.num_heads, model_limits::max_num_heads);
  check_cap(fields, "num_key_value_heads", config.num_kv_heads, model_limits::max_num_heads);
  check_cap(fields, "head_dim", config.head_dim, model_limits::max_head_dim);
  check_cap(fields, "max_position_embeddings", config.max_position_embeddings,
            model_limits::max_position_embeddings);
  if (config.sliding_window) {
    check_cap(fields, "sliding_window", *config.sliding_window,
              model_limits::max_position_embeddings);
  }
  check_cap(fields, "original_max_position_embeddings",
            config.rope.original_max_position_embeddings, model_limits::max_position_embeddings);
}

// Cross-field rules; the keys named are those of config.json.
void validate(json_fields& fields, const model_config& config) {
  check_caps(fields, config);
  detail::validate_moe_config(fields, config);
  check_positive(fields, "vocab_size", static_cast<double>(config.vocab_size));
  check_positive(fields, "hidden_size", static_cast<double>(config.hidden_size));
  check_positive(fields, "intermediate_size", static_cast<double>(config.intermediate_size));
  check_positive(fields, "num_hidden_layers", static_cast<double>(config.num_layers));
  check_positive(fields, "num_attention_heads", static_cast<double>(config.num_heads));
  check_positive(fields, "num_key_value_heads", static_cast<double>(config.num_kv_heads));
  check_positive(fields, "head_dim", static_cast<double>(config.head_dim));
  check_positive(fields, "max_position_embeddings",
                 static_cast<double>(config.max_position_embeddings));
  check_positive_finite(fields, "rms_norm_eps", config.rms_norm_eps);
  check_positive_finite(fields, "rope_theta", config.rope.theta);
  if (config.sliding_window) {
    check_positive(fields, "sliding_window", static_cast<double>(*config.sliding_window));
  }
  if (config.num_kv_heads > 0 && config.num_heads % config.num_kv_heads != 0) {
    fields.fail(error_code::invalid_argument, "num_key_value_heads",
                fmt::format("({}) must divide num_attention_heads ({})", config.num_kv_heads,
                            config.num_heads));
  }
  if (config.head_dim % 2 != 0) {
    fields.fail(error_code::invalid_argument, "head_dim", "must be even (rotary pairs)");
  }
  if (config.rope.kind != rope_kind::standard) {
    check_positive_finite(fields, "factor", config.rope.factor);
  }
  if (config.rope.kind == rope_kind::llama3) {
    check_positive(fields, "original_max_position_embeddings",
                   static_cast<double>(config.rope.original_max_position_embeddings));
    if (!(config.rope.high_freq_factor > config.rope.low_freq_factor)) {
      fields.fail(error_code::invalid_argument, "high_freq_factor",
                  "must be greater than low_freq_factor");
    }
  }
}

result<model_config> config_from_json(const boost::json::object& root,
                                      std::string_view source_name) {
  json_fields fields(root, std::string(source_name));

  model_config config;
  config.model_type = fields.required_string("model_type");
  if (!fields.ok()) return fields.first_error();
  const std::optional<model_family> family = family_of(config.model_type);
  if (!family) {
    fields.fail(error_code::unsupported, "model_type",
                "is '" + config.model_type +
                    "', which is not supported (supported: llama, mistral, qwen2, qwen3, "
                    "qwen2_moe, qwen3_moe, mixtral)");
    return fields.first_error();
  }
  config.family = *family;
  if (auto act = fields.optional_string("hidden_act"); act && *act != "silu") {
    fields.fail(error_code::unsupported, "hidden_act",
                "is '" + *act + "', which is not supported (supported: silu)");
  }
  read_shape(fields, config);
  config.rms_norm_eps = fields.number_or("rms_norm_eps", config.rms_norm_eps);
  config.rope = detail::read_rope_config(fields);
  config.tie_word_embeddings = fields.bool_or("tie_word_embeddings", false);
  config.dtype = read_dtype(fields);
  read_family_features(fields, config);
  config.moe = detail::read_moe_config(fields, config);
  read_token_ids(fields, config);
  if (fields.ok()) validate(fields, config);
  if (!fields.ok()) return fields.first_error();
  return config;
}

// generation_config.json adds eos ids (instruct models stop on several) and may name bos.
status merge_generation_config(const std::filesystem::path& path, model_config& config) {
  result<boost::json::object> root = detail::read_json_object_file(path);
  if (!root) return root.err();
  json_fields fields(*root, path.string());
  model_config extra;
  read_token_ids(fields, extra);
  if (!fields.ok()) return fields.first_error();
  if (!config.bos_token_id) config.bos_token_id = extra.bos_token_id;
  for (token_id id : extra.eos_token_ids) {
    if (std::find(config.eos_token_ids.begin(), config.eos_token_ids.end(), id) ==
        config.eos_token_ids.end()) {
      config.eos_token_ids.push_back(id);
    }
  }
  return status::success();
}

}  // namespace

result<model_config> parse_model_config(std::string_view json_text) {
  return parse_model_config(json_text, default_source);
}

result<model_config> parse_model_config(std::string_view json_text, std::string_view source_name) {
  result<boost::json::object> root = detail::parse_json_object(json_text, source_name);
  if (!root) return root.err();
  return config_from_json(*root, source_name);
}

result<model_config> load_model_config(const std::filesystem::path& dir) {
  const std::filesystem::path config_path = dir / "config.json";
  result<boost::json::object> root = detail::read_json_object_file(config_path);
  if (!root) return root.err();
  result<model_config> config = config_from_json(*root, config_path.string());
  if (!config) return config;
  const std::filesystem::path generation_path = dir / "generation_config.json";
  std::error_code ec;
  if (std::filesystem::exists(generation_path, ec)) {
    if (status merged = merge_generation_config(generation_path, *config); !merged) {
      return merged.err();
    }
  }
  const std::filesystem::path canonical = std::filesystem::weakly_canonical(dir, ec);
  config->name = (ec ? dir : canonical).filename().string();
  return config;
}

}  // namespace pagedserve
