#pragma once
// engine_gate: what `pagedserve engine --publish` publishes instead of the engine itself.
// A node that connects gets the gate; it hands out the engine's handle only for the right
// shared secret (an empty secret opens it to anyone who reaches the port). CAF 0.17's
// middleman has no authentication or encryption of its own: the secret keeps strangers and
// misconfigured routers from submitting through the handle-exchange, but a peer that saw
// the engine's handle once, or reads the traffic, is not stopped. Keep the port on a
// private network, or behind a TLS tunnel (docs/scaling.md).

#include <cstdint>
#include <string>

#include "actors/engine_actor.h"
#include "actors/engine_model_info.h"

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

// Replies with the engine and its model, or engine_errc::invalid_request ("wrong secret").
using engine_gate_actor =
    caf::typed_actor<caf::replies_to<join_atom, std::string>::with<engine_actor, published_model>>;

[[nodiscard]] engine_gate_actor spawn_engine_gate(caf::actor_system& system, engine_actor engine,
                                                  published_model model, std::string secret);

}  // namespace pagedserve::actors
