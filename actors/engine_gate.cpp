#include "actors/engine_gate.h"

#include <spdlog/spdlog.h>

#include <cstdint>
#include <set>
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

struct gate_state {
  gate_state() = default;  // not an aggregate (see scheduler_actor.cpp)
  std::set<caf::node_id> admitted;
  static inline const char* name = "pagedserve.engine_gate";
};

using gate_pointer = engine_gate_actor::stateful_pointer<gate_state>;

// Whether the message being handled comes from an admitted node (or this process).
// Ask before make_response_promise(), which moves the sender out of the current message.
bool admitted(gate_pointer self) {
  const caf::strong_actor_ptr& sender = self->current_sender();
  if (!sender) return false;  // anonymous: no node to check
  return sender->node() == self->node() || self->state.admitted.count(sender->node()) > 0;
}

caf::error not_admitted(gate_pointer self) {
  const caf::strong_actor_ptr& sender = self->current_sender();
  spdlog::warn("engine: a message from a node that has not joined ({}); refused",
               sender ? caf::to_string(sender->node()) : std::string("anonymous"));
  return make_error(engine_errc::invalid_request,
                    "not admitted: join with the engine_secret first");
}

engine_gate_actor::behavior_type gate_main(gate_pointer self, engine_actor engine,
                                           published_model model, std::string secret) {
  self->link_to(engine);  // the gate goes with its engine
  return {
      [self, model, secret](
          join_atom, const std::string& given) -> caf::result<engine_actor, published_model> {
        if (!same_secret(given, secret)) {
          spdlog::warn("engine: a connection offered a wrong secret; refused");
          return make_error(engine_errc::invalid_request, "wrong secret");
        }
        if (const auto& sender = self->current_sender()) {
          self->state.admitted.insert(sender->node());
          spdlog::info("engine: node {} joined", caf::to_string(sender->node()));
        }
        return {caf::actor_cast<engine_actor>(self), model};
      },
      [self, engine](submit_atom, generation_request& request, caf::actor& sink) {
        const bool ok = admitted(self);  // before the promise takes the sender over
        auto promise = self->make_response_promise<request_id>();
        if (ok) {
          promise.delegate(engine, submit_atom::value, std::move(request), std::move(sink));
        } else {
          promise.deliver(not_admitted(self));
        }
        return promise;
      },
      [self, engine](cancel_atom, request_id id) {  // fire and forget: no promise here
        if (admitted(self)) self->send(engine, cancel_atom::value, id);
      },
      [self, engine](stats_atom) {
        const bool ok = admitted(self);  // before the promise takes the sender over
        auto promise = self->make_response_promise<engine_stats>();
        if (ok) {
          promise.delegate(engine, stats_atom::value);
        } else {
          promise.deliver(not_admitted(self));
        }
        return promise;
      },
      [self, engine](shutdown_atom, std::uint64_t timeout_ms) {
        const bool ok = admitted(self);  // before the promise takes the sender over
        auto promise = self->make_response_promise<shutdown_report>();
        if (ok) {
          promise.delegate(engine, shutdown_atom::value, timeout_ms);
        } else {
          promise.deliver(not_admitted(self));
        }
        return promise;
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
