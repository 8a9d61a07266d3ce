#pragma once
// draft_model_loading: the speculative draft model a speculative_config names ("method":
// "draft_model", "model": a HF folder or the built-in pagedserve-demo-draft), loaded as the
// target is (config.json, safetensors, a quantized checkpoint as it declares) and checked
// against the target: the draft's token ids must be the target's (the same vocab_size; vLLM
// asks the same tokenizer) and its context must hold max_model_len positions. A draft that
// fails either is refused at start-up, never run.

#include <memory>

#include "api/engine_config.h"
#include "common/result.h"
#include "runtime/model/checkpoint.h"
#include "runtime/model/model_config.h"

namespace pagedserve {

struct loaded_draft_model {
  model_config config;
  std::shared_ptr<const checkpoint> weights;
};

// Errors name the field: speculative_config model (no such folder, a folder the loader
// refuses, a vocabulary or context that does not fit the target).
[[nodiscard]] result<loaded_draft_model> load_draft_model(const engine_config& config,
                                                          const model_config& target);

}  // namespace pagedserve
