#pragma once
// model_shape: the architecture the trainer builds, a Llama as HF transformers writes it
// (model_type "llama", tied embeddings, no biases, RoPE as rotate_half), and its config.json.

#include <cstdint>
#include <string>

namespace pagedserve::train {

struct model_shape {
  std::int64_t vocab_size = 4096;
  std::int64_t hidden_size = 256;
  std::int64_t intermediate_size = 704;
  std::int64_t num_layers = 6;
  std::int64_t num_heads = 4;
  std::int64_t num_kv_heads = 2;
  std::int64_t head_dim = 64;
  std::int64_t max_position_embeddings = 512;
  double rope_theta = 10000.0;
  double rms_norm_eps = 1e-5;
  // The demo model ties its output projection to the embedding; untied (a separate
  // lm_head.weight) is here to load HF reference models in tests.
  bool tie_word_embeddings = true;

  [[nodiscard]] std::int64_t q_size() const { return num_heads * head_dim; }
  [[nodiscard]] std::int64_t kv_size() const { return num_kv_heads * head_dim; }
  [[nodiscard]] std::int64_t group_size() const { return num_heads / num_kv_heads; }
};

// Empty when the shape is usable, else what is wrong.
[[nodiscard]] std::string shape_error(const model_shape& shape);

// HF config.json for this shape; `torch_dtype` is "bfloat16" or "float32"; the special
// token ids as the tokenizer has them.
struct special_ids {
  std::int64_t bos = 0;
  std::int64_t eos = 0;          // <|end_of_text|>
  std::int64_t end_of_turn = 0;  // <|eot_id|>: ends a chat answer
};
[[nodiscard]] std::string hf_config_json(const model_shape& shape, const special_ids& ids,
                                         const std::string& torch_dtype);
// generation_config.json: both ends stop generation, as Llama 3's does.
[[nodiscard]] std::string hf_generation_config_json(const special_ids& ids);

}  // namespace pagedserve::train
