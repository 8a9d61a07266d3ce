#include "actors/replica_connector.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <utility>

#include "actors/engine_errors.h"
#include "actors/engine_gate.h"
#include "actors/gate_address.h"

namespace pagedserve::actors {
namespace {

using namespace std::chrono_literals;

constexpr auto k_first_backoff = 250ms;
constexpr auto k_max_backoff = 5000ms;
constexpr auto k_join_timeout = 10s;

struct connector_state {
  connector_state() = default;  // not an aggregate (see scheduler_actor.cpp)
  router_actor router;
  std::uint32_t index = 0;
  replica_endpoint endpoint;
  std::chrono::milliseconds backoff = k_first_backoff;
  bool warned = false;  // one warning per outage, not one per attempt
  static inline const char* name = "pagedserve.replica_connector";
};

using self_pointer = caf::stateful_actor<connector_state>*;

std::string where(const connector_state& st) {
  return st.endpoint.host + ":" + std::to_string(st.endpoint.port);
}

void retry_later(self_pointer self, const std::string& why) {
  connector_state& st = self->state;
  if (!std::exchange(st.warned, true))
    spdlog::warn("replica {} is unreachable ({}); retrying with backoff", where(st), why);
  self->delayed_send(self, st.backoff, reconnect_atom::value);
  st.backoff = std::min(st.backoff * 2, k_max_backoff);
}

void join(self_pointer self, const engine_gate_actor& gate) {
  connector_state& st = self->state;
  self->request(gate, k_join_timeout, join_atom::value, st.endpoint.secret)
      .then(
          [self](engine_actor& engine, published_model& model) {
            connector_state& s = self->state;
            if (!s.endpoint.expected_model.empty() && model.name != s.endpoint.expected_model) {
              retry_later(
                  self, "it serves '" + model.name + "', not '" + s.endpoint.expected_model + "'");
              return;
            }
            spdlog::info("replica {} joined ({}, {} KV blocks)", where(s), model.name,
                         model.num_blocks);
            s.backoff = k_first_backoff;
            s.warned = false;
            self->send(s.router, replica_up_atom::value, s.index, std::move(engine));
          },
          [self](caf::error& err) { retry_later(self, error_message(err)); });
}

void connect(self_pointer self) {
  connector_state& st = self->state;
  connect_gate(
      self, st.endpoint.host, st.endpoint.port,
      [self](const engine_gate_actor& gate) { join(self, gate); },
      [self](const std::string& why) { retry_later(self, why); });
}

caf::behavior connector_main(self_pointer self, router_actor router, std::uint32_t index,
                             replica_endpoint endpoint) {
  self->state.router = std::move(router);
  self->state.index = index;
  self->state.endpoint = std::move(endpoint);
  // The connector lives as long as its router (the facade waits for every actor to end).
  self->monitor(self->state.router);
  self->set_down_handler([self](caf::down_msg&) { self->quit(); });
  self->send(self, reconnect_atom::value);
  return {
      [self](reconnect_atom) { connect(self); },
      [self](replica_lost_atom, std::uint32_t) {
        spdlog::warn("replica {} went away; reconnecting", where(self->state));
        self->state.warned = true;
        self->state.backoff = k_first_backoff;
        self->delayed_send(self, k_first_backoff, reconnect_atom::value);
      },
  };
}

}  // namespace

caf::actor spawn_replica_connector(caf::actor_system& system, router_actor router,
                                   std::uint32_t index, replica_endpoint endpoint) {
  return system.spawn<caf::detached>(connector_main, std::move(router), index, std::move(endpoint));
}

}  // namespace pagedserve::actors
