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
                                           std::string secret) {
  self->link_to(engine);  // the gate goes with its engine
  return {
      [engine, secret](join_atom, const std::string& given) -> caf::result<engine_actor> {
        if (!same_secret(given, secret)) {
          spdlog::warn("engine: a connection offered a wrong secret; refused");
          return make_error(engine_errc::invalid_request, "wrong secret");
        }
        return engine;
      },
  };
}

}  // namespace

engine_gate_actor spawn_engine_gate(caf::actor_system& system, engine_actor engine,
                                    std::string secret) {
  return system.spawn(gate_main, std::move(engine), std::move(secret));
}

}  // namespace pagedserve::actors
