#include "actors/spawn_engine.h"

#include <memory>
#include <string>
#include <utility>

#include "actors/engine_errors.h"
#include "actors/engine_front.h"
#include "actors/executor_actor.h"
#include "actors/intake_actor.h"
#include "actors/scheduler_actor.h"
#include "runtime/engine/model_loading.h"

namespace pagedserve::actors {
namespace {

status check_fits_model(const engine_config& config, const model_config& model) {
  if (model.max_position_embeddings > 0 &&
      config.sched.max_model_len > static_cast<std::uint64_t>(model.max_position_embeddings)) {
    return make_error(error_code::invalid_argument,
                      "sched.max_model_len " + std::to_string(config.sched.max_model_len) +
                          " exceeds the model's max_position_embeddings " +
                          std::to_string(model.max_position_embeddings));
  }
  return status::success();
}

result<std::unique_ptr<step_executor>> make_executor(const engine_config& config,
                                                     const loaded_model& model) {
  step_executor_config ec;
  ec.model = model.config;
  ec.weights = model.weights;
  ec.backend = config.backend;
  ec.block_size = config.sched.block_size;
  ec.num_blocks = config.sched.num_blocks;
  ec.before_step = config.before_step;
  return step_executor::create(std::move(ec));
}

engine_model_info describe(const engine_config& config, const loaded_model& model) {
  engine_model_info info;
  info.name = engine_model_name(config);
  info.max_model_len = config.sched.max_model_len;
  info.vocab_size = static_cast<std::uint32_t>(model.config.vocab_size);
  info.block_size = config.sched.block_size;
  info.num_blocks = config.sched.num_blocks;
  info.max_n = config.max_n;
  info.tok = model.tok;
  info.eos_token_ids = model.eos_token_ids;
  return info;
}

}  // namespace

result<engine_actor> spawn_engine(caf::actor_system& system, engine_config config) {
  auto spawned = spawn_described_engine(system, std::move(config));
  if (!spawned) return spawned.err();
  return std::move(spawned->actor);
}

result<spawned_engine> spawn_described_engine(caf::actor_system& system, engine_config config) {
  if (status ok = validate(config); !ok) return ok.err();
  auto model = load_engine_model(config);
  if (!model) return model.err();
  if (status ok = check_fits_model(config, model->config); !ok) return ok.err();
  config.sched.num_blocks = resolve_num_blocks(config, model->config);
  auto executor = make_executor(config, *model);
  if (!executor) return executor.err();

  spawned_engine out;
  out.model = describe(config, *model);

  intake_setup intake;
  intake.max_model_len = config.sched.max_model_len;
  intake.max_n = config.max_n;
  intake.vocab_size = model->config.vocab_size;
  intake.tok = model->tok;

  engine_core_setup core;
  core.eos_token_ids = model->eos_token_ids;
  core.vocab_size = static_cast<std::uint32_t>(model->config.vocab_size);
  core.tok = model->tok;
  core.config = std::move(config);

  auto exec = spawn_executor(system, std::move(*executor));
  auto scheduler = spawn_scheduler(system, exec, std::move(core));
  auto front_door = spawn_intake(system, scheduler, std::move(intake));
  out.actor =
      spawn_engine_front(system, std::move(front_door), std::move(scheduler), std::move(exec));
  return out;
}

}  // namespace pagedserve::actors
