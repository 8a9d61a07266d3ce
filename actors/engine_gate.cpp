#include "actors/engine_gate.h"

#include <spdlog/spdlog.h>

#include <cstdint>
#include <utility>

#include "actors/messages.h"

namespace pagedserve::actors {
namespace {

// Compares without stopping at the first difference, so the reply time says nothing about
// how much of a guess was right.
bool same_secret(const std::string& given, const std::string& expected) {
  std::uint8_t diff = given.size() == expected.size() ? 0 : 1;
  for (std::size_t i = 0; i < given.size(); ++i) {
    const char e = expected.empty() ? '\0' : expected[i % expected.size()];
    diff |= static_cast<std::uint8_t>(given[i] ^ e);
  }
  return diff == 0;
}

engine_gate_actor::behavior_type gate_main(engine_gate_actor::pointer self, engine_actor engine,
                                           published_model model, std::string secret) {
  self->link_to(engine);  // the gate goes with its engine
  return {
      [engine, model, secret](
          join_atom, const std::string& given) -> caf::result<engine_actor, published_model> {
        if (!same_secret(given, secret)) {
          spdlog::warn("engine: a connection offered a wrong secret; refused");
          return make_error(engine_errc::invalid_request, "wrong secret");
        }
        return {engine, model};
      },
  };
}

}  // namespace

published_model to_published(const engine_model_info& info) {
  return {.name = info.name,
          .max_model_len = info.max_model_len,
          .vocab_size = info.vocab_size,
          .block_size = info.block_size,
          .num_blocks = info.num_blocks,
          .max_n = info.max_n,
          .quantization = info.quantization,
          .kv_cache_dtype = info.kv_cache_dtype};
}

engine_gate_actor spawn_engine_gate(caf::actor_system& system, engine_actor engine,
                                    published_model model, std::string secret) {
  return system.spawn(gate_main, std::move(engine), std::move(model), std::move(secret));
}

}  // namespace pagedserve::actors
