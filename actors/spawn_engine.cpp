#include "actors/spawn_engine.h"

#include <spdlog/spdlog.h>

#include <memory>
#include <string>
#include <utility>

#include "actors/engine_errors.h"
#include "actors/engine_front.h"
#include "actors/executor_actor.h"
#include "actors/intake_actor.h"
#include "actors/scheduler_actor.h"
#include "kernels/backend_registry.h"
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

// dtype auto: float32 on the CPU; on CUDA the checkpoint's 16-bit type (bfloat16 for an fp32
// checkpoint, as vLLM does for fp32 weights on GPUs: fp32 is for checking, and asked by name).
kernels::dtype compute_type_of(const engine_config& config, const model_config& model) {
  if (config.dtype != "auto") return *kernels::parse_compute_type(config.dtype);
  if (config.backend == "cpu") return kernels::dtype::f32;
  return model.dtype == weight_dtype::f16 ? kernels::dtype::f16 : kernels::dtype::bf16;
}

result<std::unique_ptr<step_executor>> make_executor(const engine_config& config,
                                                     const loaded_model& model) {
  auto backend = kernels::make_backend(config.backend, compute_type_of(config, model.config));
  if (!backend) return backend.err();
  step_executor_config ec;
  ec.model = model.config;
  ec.weights = model.weights;
  ec.backend = std::move(*backend);
  ec.block_size = config.sched.block_size;
  ec.num_blocks = config.sched.num_blocks;
  ec.gpu_memory_utilization = config.gpu_memory_utilization;
  ec.max_num_batched_tokens = config.sched.max_num_batched_tokens;
  ec.max_num_seqs = config.sched.max_num_seqs;
  ec.max_model_len = config.sched.max_model_len;
  ec.enforce_eager = config.enforce_eager;
  ec.before_step = config.before_step;
  return step_executor::create(std::move(ec));
}

// What the operator should know about the KV pool and the step path before the first
// request (vLLM prints the same figures).
void log_executor_setup(const engine_config& config, const step_executor_setup& setup) {
  constexpr double gib = 1024.0 * 1024.0 * 1024.0;
  if (setup.planned_from_memory) {
    spdlog::info(
        "KV cache sized from gpu_memory_utilization {:.2f}: {:.2f} GiB of {:.2f} GiB device "
        "memory in use after the profiling forward",
        config.gpu_memory_utilization, static_cast<double>(setup.in_use_bytes) / gib,
        static_cast<double>(setup.device_total_bytes) / gib);
  }
  spdlog::info(
      "KV cache: {} blocks of {} tokens, {} bytes each ({:.2f} GiB in all); maximum "
      "concurrency for {} tokens per request: {:.2f}x",
      setup.num_blocks, config.sched.block_size, setup.bytes_per_block,
      static_cast<double>(setup.kv_bytes) / gib, config.sched.max_model_len, setup.max_concurrency);
  spdlog::info("{} backend: sampling on the {}, {} decode graphs{}", config.backend,
               setup.samples_on_device ? "device" : "host", setup.num_decode_graphs,
               setup.num_decode_graphs == 0 && config.backend != "cpu" && !config.enforce_eager
                   ? " (the backend captures none)"
                   : "");
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
  // The CPU has no device memory to plan from: its pool is sized from the configuration.
  // CUDA plans its own (num_blocks 0) and the scheduler gets what the executor allocated.
  if (config.backend == "cpu") config.sched.num_blocks = resolve_num_blocks(config, model->config);
  auto executor = make_executor(config, *model);
  if (!executor) return executor.err();
  config.sched.num_blocks = (*executor)->setup().num_blocks;
  if (status ok = sched::validate(config.sched); !ok) {
    return make_error(error_code::capacity_exceeded, "sched: " + ok.err().message);
  }
  log_executor_setup(config, (*executor)->setup());

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
