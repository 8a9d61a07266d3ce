#pragma once
// engine_gate: what `pagedserve engine --publish` publishes, and the only handle of that
// engine that ever leaves the process. A node that connects gets the gate; `join` with the
// same shared secret (both empty: no secret) admits the caller's node and answers with the
// gate itself as the engine (it forwards the engine API) and the model's limits. Every
// engine message is checked: it must come from an actor (not anonymous) on an admitted node
// (or this one); others get invalid_request "not admitted". The engine's own actors are
// never sent over the network, so CAF's middleman (which delivers a remote message to any
// actor whose handle it once sent, by id) cannot reach them around the gate.
//
// What this does not stop: BASP (CAF 0.17) has no authentication or encryption; the secret
// crosses in clear and a node id in a message header could be forged by a peer that learned
// an admitted node's id. Keep the port on a private network or behind a TLS tunnel
// (docs/scaling.md).

#include <cstdint>
#include <string>

#include "actors/engine_actor.h"
#include "api/engine_model_info.h"

namespace pagedserve::actors {

using join_atom = caf::atom_constant<caf::atom("join")>;

// What a router needs to know about a published engine beyond what it reads from the model
// folder itself (tokenizer, chat template, generation config): the model it serves and the
// limits its start-up plan resolved.
struct published_model {
  std::string name;
  std::uint32_t max_model_len = 0;
  std::uint32_t vocab_size = 0;
  std::uint32_t block_size = 0;
  std::uint32_t num_blocks = 0;
  std::uint32_t max_n = 0;
  std::string quantization;
  std::string kv_cache_dtype;
};

[[nodiscard]] published_model to_published(const engine_model_info& info);

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, published_model& x) {
  return f(caf::meta::type_name("published_model"), x.name, x.max_model_len, x.vocab_size,
           x.block_size, x.num_blocks, x.max_n, x.quantization, x.kv_cache_dtype);
}

// The engine API for admitted nodes, plus join: the gate (as the engine) and the model, or
// engine_errc::invalid_request ("wrong secret").
using engine_gate_actor = engine_actor::extend<
    caf::replies_to<join_atom, std::string>::with<engine_actor, published_model>>;

[[nodiscard]] engine_gate_actor spawn_engine_gate(caf::actor_system& system, engine_actor engine,
                                                  published_model model, std::string secret);

}  // namespace pagedserve::actors
