#include "actors/gate_address.h"

#include <utility>

namespace pagedserve::actors {

caf::expected<engine_gate_actor> as_gate(caf::actor_system& system, caf::strong_actor_ptr published,
                                         const std::set<std::string>& interface) {
  if (!published) return caf::make_error(caf::sec::no_actor_published_at_port);
  if (interface != system.message_types<engine_gate_actor>()) {
    return caf::make_error(caf::sec::unexpected_actor_messaging_interface,
                           "not a pagedserve engine (started with `pagedserve engine`?)");
  }
  return caf::actor_cast<engine_gate_actor>(std::move(published));
}

caf::expected<engine_gate_actor> connect_gate_blocking(caf::actor_system& system,
                                                       const std::string& host,
                                                       std::uint16_t port) {
  caf::expected<engine_gate_actor> out = caf::make_error(caf::sec::request_timeout);
  caf::scoped_actor self{system};
  self->request(system.middleman().actor_handle(), k_gate_connect_timeout, caf::connect_atom::value,
                host, port)
      .receive(
          [&](const caf::node_id&, caf::strong_actor_ptr& published,
              std::set<std::string>& interface) {
            out = as_gate(system, std::move(published), interface);
          },
          [&](caf::error& err) { out = std::move(err); });
  return out;
}

}  // namespace pagedserve::actors
