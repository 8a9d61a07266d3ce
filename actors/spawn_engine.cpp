#include "actors/spawn_engine.h"

#include <spdlog/spdlog.h>

#include <caf/io/all.hpp>
#include <chrono>

#include <memory>
#include <string>
#include <utility>

#include "actors/engine_front.h"
#include "actors/executor_actor.h"
#include "actors/intake_actor.h"
#include "actors/scheduler_actor.h"
#include "kernels/backend_registry.h"
#include "runtime/engine/engine_start.h"
#include "runtime/plan/engine_plan.h"

namespace pagedserve::actors {
namespace {

engine_model_info describe(const engine_config& config, const started_engine& started) {
  engine_model_info info;
  info.name = engine_model_name(config);
  info.max_model_len = started.plan->sched.max_model_len;
  info.vocab_size = static_cast<std::uint32_t>(started.model.config.vocab_size);
  info.block_size = started.plan->sched.block_size;
  info.num_blocks = started.plan->sched.num_blocks;
  info.max_n = started.plan->max_n;
  info.tok = started.model.tok;
  info.eos_token_ids = started.model.eos_token_ids;
  info.quantization = started.model.quantization;
  info.kv_cache_dtype = std::string(forward::to_string(started.plan->kv_cache_dtype));
  info.sampling_defaults = started.model.sampling_defaults;
  info.hidden_size = static_cast<std::uint32_t>(started.model.config.hidden_size);
  info.declared_pooling = started.model.embedding.pooling;
  info.is_matryoshka = started.model.embedding.is_matryoshka;
  info.matryoshka_dimensions = started.model.embedding.matryoshka_dimensions;
  return info;
}

}  // namespace

result<engine_actor> spawn_engine(caf::actor_system& system, engine_config config) {
  auto spawned = spawn_described_engine(system, std::move(config));
  if (!spawned) return spawned.err();
  return std::move(spawned->actor);
}

// Everything about the model, the pool and the step path is decided by start_engine
// (runtime/engine/engine_start.h) before any actor exists; here the actors are spawned.
result<spawned_engine> spawn_described_engine(caf::actor_system& system, engine_config config) {
  auto started = start_engine(config);
  if (!started) return started.err();
  spdlog::info("weights: {:.2f} MiB on the {} backend; quantization: {}",
               static_cast<double>(started->plan->weight_bytes) / (1024.0 * 1024.0), config.backend,
               started->model.quantization);
  if (const forward::quantized_layer_counts& q = started->plan->quantized_layers;
      q.dequantized > 0) {
    spdlog::warn(
        "{} of {} quantized linear layers are dequantized to the compute type at load: the {} "
        "backend in {} does not compute with their format or shape (docs/quantization.md)",
        q.dequantized, q.kept + q.dequantized, config.backend,
        kernels::compute_type_name(started->plan->compute_type));
  } else if (q.kept > 0) {
    spdlog::info("{} quantized linear layers computed with their codes", q.kept);
  }
  if (const std::string options = kernels::describe_backend_options(plan_backend_options(config));
      !options.empty()) {
    spdlog::info("{}", options);
  }
  if (started->plan->kv_cache_dtype != forward::kv_cache_dtype::auto_ &&
      !started->model.weights->kv_scales()) {
    spdlog::warn(
        "kv_cache_dtype {}: the checkpoint has no k/v scales, so every layer uses 1.0 (as vLLM "
        "does); keys and values beyond +-448 saturate",
        config.kv_cache_dtype);
  }
  if (!started->model.sampling_defaults.empty()) {
    spdlog::info(
        "default sampling from the model's generation_config.json: {} (for requests that leave "
        "them out; generation_config: vllm turns this off)",
        started->model.sampling_defaults.describe());
  }
  for (const std::string& line :
       describe_plan(config, *started->plan, started->executor->num_decode_graphs())) {
    spdlog::info("{}", line);
  }

  spawned_engine out;
  out.model = describe(config, *started);
  const request_limits limits =
      request_limits_of(*started->plan, out.model.vocab_size, started->model.tok);

  engine_core_setup core;
  core.plan = started->plan;
  core.eos_token_ids = started->model.eos_token_ids;
  core.vocab_size = out.model.vocab_size;
  core.tok = started->model.tok;

  auto exec = spawn_executor(system, std::move(started->executor));
  auto scheduler = spawn_scheduler(system, exec, std::move(core));
  auto front_door = spawn_intake(system, scheduler, limits);
  out.actor =
      spawn_engine_front(system, std::move(front_door), std::move(scheduler), std::move(exec));
  return out;
}

caf::actor_system_config& configure_engine_system(caf::actor_system_config& cfg, bool networked) {
  // Published replicas: CAF's middleman, with heartbeats so that a frozen peer is noticed
  // (a dead connection is noticed at once; a silent one only through the timeout).
  if (networked) {
    cfg.load<caf::io::middleman>();
    cfg.set("middleman.heartbeat-interval", caf::timespan{std::chrono::seconds(1)});
    cfg.set("middleman.connection-timeout", caf::timespan{std::chrono::seconds(10)});
  }
  add_engine_message_types(cfg);
  cfg.set("scheduler.max-threads", std::size_t{4});
  // Idle workers sleep on their condition variable at once (a message from outside a worker
  // wakes them) instead of CAF's default of spinning, then polling every 50 us for ~25 ms.
  // That polling took the cores from the CPU backend's OpenMP team at every step: one stream
  // through `serve` ran ~30% slower per token than `generate` (docs/cpu-backend.md).
  cfg.set("work-stealing.aggressive-poll-attempts", std::size_t{0});
  cfg.set("work-stealing.moderate-poll-attempts", std::size_t{0});
  return cfg;
}

}  // namespace pagedserve::actors
