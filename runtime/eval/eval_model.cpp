#include "runtime/eval/eval_model.h"

#include <algorithm>
#include <filesystem>
#include <string>
#include <utility>

#include "kernels/backend_registry.h"
#include "runtime/engine/model_loading.h"
#include "runtime/plan/engine_plan.h"

namespace pagedserve::eval {
namespace {

constexpr std::int64_t k_default_context = 2048;  // the engine's default max_model_len

// The model's own bound on positions: max_position_embeddings, then the sliding window (the
// forward attends to every position, so it is exact only within the window).
std::optional<std::int64_t> model_position_bound(const model_config& model) {
  std::optional<std::int64_t> bound;
  if (model.max_position_embeddings > 0) bound = model.max_position_embeddings;
  if (model.sliding_window)
    bound = std::min(bound.value_or(*model.sliding_window), *model.sliding_window);
  return bound;
}

}  // namespace

result<eval_model> load_eval_model(const engine_config& config) {
  if (status ok = validate(config); !ok) return ok.err();
  auto loaded = load_engine_model(config);
  if (!loaded) return loaded.err();
  auto backend = kernels::make_backend(config.backend, plan_compute_type(config, loaded->config),
                                       plan_backend_options(config));
  if (!backend) return backend.err();
  auto weights = forward::upload_model_weights(**backend, loaded->config, *loaded->weights);
  if (!weights) return weights.err();
  eval_model model;
  model.config = loaded->config;
  model.tok = loaded->tok;
  model.backend = std::move(*backend);
  model.forward =
      std::make_unique<forward::model_forward>(*model.backend, model.config, std::move(*weights));
  return model;
}

result<std::int64_t> context_limit(const model_config& model,
                                   std::optional<std::int64_t> max_model_len) {
  const std::optional<std::int64_t> bound = model_position_bound(model);
  if (!max_model_len) return bound.value_or(k_default_context);
  if (bound && *max_model_len > *bound) {
    return make_error(error_code::invalid_argument,
                      "--max-model-len " + std::to_string(*max_model_len) + " exceeds the " +
                          std::to_string(*bound) + " positions model " + model.name +
                          " supports (max_position_embeddings or sliding window)");
  }
  return *max_model_len;
}

}  // namespace pagedserve::eval
