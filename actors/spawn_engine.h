#pragma once
// spawn_engine: builds an engine inside a caller's actor system. Loads the model (weights,
// tokenizer, generation config) on the calling thread, so a bad model is an error here and
// not a dead actor later; then spawns the intake, scheduler and executor actors behind one
// typed engine_actor. Call add_engine_message_types() on the system's config first.

#include "actors/engine_actor.h"
#include "api/engine_config.h"
#include "api/engine_model_info.h"
#include "common/result.h"

namespace pagedserve::actors {

// Registers the public message types (required once per actor_system_config, on every node
// that talks to an engine over the network) and the "pagedserve" error category.
void add_engine_message_types(caf::actor_system_config& cfg);

// The actor system an engine runs in: the message types, 4 workers that sleep when idle
// (CAF's default polling took the cores from the CPU backend's OpenMP team), and with
// `networked` CAF's middleman with heartbeats (published engines and routers to them).
caf::actor_system_config& configure_engine_system(caf::actor_system_config& cfg, bool networked);

[[nodiscard]] result<engine_actor> spawn_engine(caf::actor_system& system, engine_config config);

// An engine and what it loaded (for servers: the model's name, limits and tokenizer).
struct spawned_engine {
  engine_actor actor;
  engine_model_info model;
};

// spawn_engine that also describes the model it loaded.
[[nodiscard]] result<spawned_engine> spawn_described_engine(caf::actor_system& system,
                                                            engine_config config);

}  // namespace pagedserve::actors
