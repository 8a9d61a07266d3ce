#include "train/model/model_shape.h"

#include <boost/json.hpp>

namespace pagedserve::train {

namespace json = boost::json;

std::string shape_error(const model_shape& s) {
  if (s.vocab_size <= 0 || s.hidden_size <= 0 || s.intermediate_size <= 0 || s.num_layers <= 0 ||
      s.num_heads <= 0 || s.num_kv_heads <= 0 || s.head_dim <= 0) {
    return "every dimension must be positive";
  }
  if (s.num_heads % s.num_kv_heads != 0) return "num_heads must be a multiple of num_kv_heads";
  if (s.head_dim % 2 != 0) return "head_dim must be even (RoPE rotates pairs)";
  if (s.max_position_embeddings <= 0) return "max_position_embeddings must be positive";
  return {};
}

std::string hf_config_json(const model_shape& s, const special_ids& ids,
                           const std::string& torch_dtype) {
  json::object config{
      {"architectures", json::array{"LlamaForCausalLM"}},
      {"model_type", "llama"},
      {"vocab_size", s.vocab_size},
      {"hidden_size", s.hidden_size},
      {"intermediate_size", s.intermediate_size},
      {"num_hidden_layers", s.num_layers},
      {"num_attention_heads", s.num_heads},
      {"num_key_value_heads", s.num_kv_heads},
      {"head_dim", s.head_dim},
      {"max_position_embeddings", s.max_position_embeddings},
      {"rms_norm_eps", s.rms_norm_eps},
      {"rope_theta", s.rope_theta},
      {"rope_scaling", nullptr},
      {"hidden_act", "silu"},
      {"attention_bias", false},
      {"mlp_bias", false},
      {"tie_word_embeddings", s.tie_word_embeddings},
      {"bos_token_id", ids.bos},
      {"eos_token_id", ids.eos},
      {"torch_dtype", torch_dtype},
  };
  return json::serialize(config) + "\n";
}

std::string hf_generation_config_json(const special_ids& ids) {
  json::object config{{"bos_token_id", ids.bos},
                      {"eos_token_id", json::array{ids.eos, ids.end_of_turn}},
                      {"do_sample", true},
                      {"temperature", 0.8},
                      {"top_p", 0.95}};
  return json::serialize(config) + "\n";
}

}  // namespace pagedserve::train
