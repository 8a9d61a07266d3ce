#include "runtime/model/demo_model.h"

namespace pagedserve {

model_config demo_model_config() {
  model_config config;
  config.family = model_family::llama;
  config.model_type = "llama";
  config.name = std::string(demo_model_name);
  config.vocab_size = 512;
  config.hidden_size = 256;
  config.intermediate_size = 688;
  config.num_layers = 4;
  config.num_heads = 8;
  config.num_kv_heads = 4;
  config.head_dim = 32;
  config.max_position_embeddings = 4096;
  config.rms_norm_eps = 1e-5;
  config.rope = rope_config{};  // default rope, theta 10000
  config.tie_word_embeddings = true;
  config.dtype = weight_dtype::f32;
  config.bos_token_id = 1;
  config.eos_token_ids = {2};
  return config;
}

}  // namespace pagedserve
