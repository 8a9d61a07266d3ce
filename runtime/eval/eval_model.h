#pragma once
// eval_model: one model loaded for `pagedserve eval`, as `pagedserve generate` loads it: a HF
// checkpoint folder (--model), a config.json with dummy weights (--model-config), or the
// built-in demo model (no --model, or --model pagedserve-demo). Its weights live on a backend
// of its own (cpu, or cuda with --dtype), so a model and its reference may differ in type.

#include <cstdint>
#include <memory>
#include <optional>

#include "api/engine_config.h"
#include "common/result.h"
#include "kernels/backend.h"
#include "runtime/forward/model_forward.h"
#include "runtime/model/model_config.h"
#include "runtime/tokenizer/tokenizer.h"

namespace pagedserve::eval {

struct eval_model {
  model_config config;
  std::shared_ptr<const tokenizer> tok;  // null when the model has none
  // Declared before `forward`, which refers to it: destroyed after it.
  std::unique_ptr<kernels::backend> backend;
  std::unique_ptr<forward::model_forward> forward;
};

// Errors: the loader's (a missing folder, a bad config.json or checkpoint), the backend's
// (invalid_argument for a dtype the backend does not compute in, unsupported without CUDA).
[[nodiscard]] result<eval_model> load_eval_model(const engine_config& config);

// The most tokens of one workload line: `max_model_len` when given (refused past the model's
// max_position_embeddings or sliding window: invalid_argument), else the model's
// max_position_embeddings (2048 when the config has none), capped at its sliding window.
[[nodiscard]] result<std::int64_t> context_limit(const model_config& model,
                                                 std::optional<std::int64_t> max_model_len);

}  // namespace pagedserve::eval
