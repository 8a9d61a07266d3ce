#include "runtime/engine/engine_start.h"

#include <utility>

#include "kernels/backend_registry.h"
#include "runtime/engine/draft_model_loading.h"
#include "runtime/forward/model_forward.h"
#include "runtime/forward/model_weights.h"
#include "runtime/model/checkpoint.h"

namespace pagedserve {

result<started_executor> start_executor(const engine_config& config, const model_config& model,
                                        const checkpoint& weights,
                                        std::unique_ptr<kernels::backend> backend) {
  if (!backend) {
    auto made = kernels::make_backend(config.backend, plan_compute_type(config, model),
                                      plan_backend_options(config));
    if (!made) return made.err();
    backend = std::move(*made);
  }
  auto on_device = forward::upload_model_weights(*backend, model, weights);
  if (!on_device) return on_device.err();
  auto forward = std::make_unique<forward::model_forward>(*backend, model, std::move(*on_device));
  std::unique_ptr<forward::model_forward> draft;
  if (config.speculative.method == speculative_method::draft_model) {
    auto loaded = load_draft_model(config, model);
    if (!loaded) return loaded.err();
    auto draft_weights = forward::upload_model_weights(*backend, loaded->config, *loaded->weights);
    if (!draft_weights) return draft_weights.err();
    draft = std::make_unique<forward::model_forward>(*backend, loaded->config,
                                                     std::move(*draft_weights));
  }
  auto plan = plan_engine(config, *forward, draft ? &draft->config() : nullptr);
  if (!plan) return plan.err();

  started_executor out;
  out.plan = std::make_shared<const engine_plan>(std::move(*plan));
  step_executor_parts parts;
  parts.backend = std::move(backend);
  parts.forward = std::move(forward);
  parts.draft = std::move(draft);
  parts.plan = out.plan;
  parts.before_step = config.before_step;
  out.executor = step_executor::create(std::move(parts));
  return out;
}

result<started_engine> start_engine(const engine_config& requested) {
  if (status ok = validate(requested); !ok) return ok.err();
  auto model = load_engine_model(requested);
  if (!model) return model.err();
  const engine_config config = with_model_context(requested, model->config);
  if (status ok = check_fits_model(config, model->config); !ok) return ok.err();
  auto executor = start_executor(config, model->config, *model->weights);
  if (!executor) return executor.err();
  started_engine out;
  out.model = std::move(*model);
  out.plan = std::move(executor->plan);
  out.executor = std::move(executor->executor);
  return out;
}

}  // namespace pagedserve
