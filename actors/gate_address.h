#pragma once
// Reaching a published engine's gate with a deadline. CAF 0.17's middleman().remote_actor()
// waits without one (a host that drops SYNs blocks for the kernel's connect timeout, a peer
// that never answers the handshake forever), so both the router's connectors and the
// front's start-up ask the middleman actor instead, with a request timeout.

#include <chrono>
#include <cstdint>
#include <set>
#include <string>

#include <caf/io/all.hpp>

#include "actors/engine_gate.h"

namespace pagedserve::actors {

inline constexpr auto k_gate_connect_timeout = std::chrono::seconds(10);

// The gate behind what the middleman's connect answered, or why it is not one.
[[nodiscard]] caf::expected<engine_gate_actor> as_gate(caf::actor_system& system,
                                                       caf::strong_actor_ptr published,
                                                       const std::set<std::string>& interface);

// Sends the connect request from `self` (an event-based actor) and calls `on_gate` with the
// gate or `on_error` with the reason, within k_gate_connect_timeout.
template <class Self, class OnGate, class OnError>
void connect_gate(Self* self, const std::string& host, std::uint16_t port, OnGate on_gate,
                  OnError on_error) {
  self->request(self->system().middleman().actor_handle(), k_gate_connect_timeout,
                caf::connect_atom::value, host, port)
      .then(
          [self, on_gate, on_error](const caf::node_id&, caf::strong_actor_ptr& published,
                                    std::set<std::string>& interface) {
            auto gate = as_gate(self->system(), std::move(published), interface);
            if (gate) {
              on_gate(std::move(*gate));
            } else {
              on_error(self->system().render(gate.error()));
            }
          },
          [self, on_error](caf::error& err) { on_error(self->system().render(err)); });
}

// The same from a thread (start-up): blocks for at most k_gate_connect_timeout.
[[nodiscard]] caf::expected<engine_gate_actor> connect_gate_blocking(caf::actor_system& system,
                                                                     const std::string& host,
                                                                     std::uint16_t port);

}  // namespace pagedserve::actors
