#include "actors/replica_fleet.h"

#include <spdlog/spdlog.h>

#include <caf/io/all.hpp>
#include <chrono>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "actors/engine_errors.h"
#include "actors/engine_gate.h"
#include "actors/gate_address.h"
#include "actors/replica_connector.h"
#include "actors/router_actor.h"
#include "runtime/engine/model_loading.h"
#include "runtime/routing/replica_address.h"

namespace pagedserve::actors {
namespace {

using namespace std::chrono_literals;

constexpr auto k_join_timeout = 10s;
constexpr auto k_retry_interval = 250ms;

result<std::vector<routing::replica_address>> parse_all(const replica_plan& plan) {
  std::vector<routing::replica_address> out;
  for (const std::string& entry : plan.replicas) {
    auto address = routing::parse_replica_address(entry);
    if (!address)
      return make_error(error_code::invalid_argument, "replicas: " + address.err().message);
    out.push_back(std::move(*address));
  }
  return out;
}

// Asks one published engine's gate for its model; nothing when it cannot answer now, or
// when it refused (`refused`: the secret is wrong, waiting will not help).
std::optional<published_model> ask_model(caf::actor_system& system,
                                         const routing::replica_address& address,
                                         const std::string& secret, std::string& why,
                                         bool& refused) {
  auto gate = connect_gate_blocking(system, address.host, address.port);
  if (!gate) {
    why = system.render(gate.error());
    return std::nullopt;
  }
  std::optional<published_model> out;
  caf::scoped_actor self{system};
  self->request(*gate, k_join_timeout, join_atom::value, secret)
      .receive([&](const engine_actor&, published_model& model) { out = std::move(model); },
               [&](caf::error& err) {
                 why = error_message(err);
                 refused = engine_errc_of(err) == engine_errc::invalid_request;
               });
  return out;
}

// The model as the published engines serve it: files read here, limits from the first one
// that answers.
result<engine_model_info> describe_published(caf::actor_system& system, const engine_config& config,
                                             const std::vector<routing::replica_address>& addresses,
                                             const replica_plan& plan) {
  auto description = load_engine_model_description(config);
  if (!description) return description.err();
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration<double>(plan.first_replica_timeout_s);
  std::string why;
  for (;;) {
    for (const auto& address : addresses) {
      bool refused = false;
      auto model = ask_model(system, address, plan.secret, why, refused);
      if (refused) {
        return make_error(
            error_code::invalid_argument,
            "replica " + address.to_string() + " refused this server: " + why + " (engine_secret)");
      }
      if (!model) continue;
      if (model->name != engine_model_name(config)) {
        return make_error(error_code::invalid_argument,
                          "replica " + address.to_string() + " serves '" + model->name +
                              "', this server's model is '" + engine_model_name(config) + "'");
      }
      engine_model_info info;
      info.name = model->name;
      info.max_model_len = model->max_model_len;
      info.vocab_size = model->vocab_size;
      info.block_size = model->block_size;
      info.num_blocks = model->num_blocks;
      info.max_n = model->max_n;
      info.tok = description->tok;
      info.eos_token_ids = description->eos_token_ids;
      info.quantization = model->quantization;
      info.kv_cache_dtype = model->kv_cache_dtype;
      info.sampling_defaults = description->sampling_defaults;
      info.hidden_size = static_cast<std::uint32_t>(description->config.hidden_size);
      info.declared_pooling = description->embedding.pooling;
      info.is_matryoshka = description->embedding.is_matryoshka;
      info.matryoshka_dimensions = description->embedding.matryoshka_dimensions;
      return info;
    }
    if (std::chrono::steady_clock::now() >= deadline) break;
    std::this_thread::sleep_for(k_retry_interval);
  }
  return make_error(error_code::unavailable, "no published replica answered within " +
                                                 std::to_string(plan.first_replica_timeout_s) +
                                                 " s (last: " + why + ")");
}

}  // namespace

bool plan_needs_network(const replica_plan& plan) {
  for (const std::string& entry : plan.replicas) {
    if (entry != "local") return true;
  }
  return false;
}

result<spawned_fleet> spawn_replica_fleet(caf::actor_system& system, const engine_config& config,
                                          const replica_plan& plan) {
  auto addresses = parse_all(plan);
  if (!addresses) return addresses.err();
  std::vector<router_replica> replicas;
  std::optional<engine_model_info> model;
  const auto stop_spawned = [&] {
    for (const auto& r : replicas) {
      if (r.actor) caf::anon_send_exit(r.actor, caf::exit_reason::kill);
    }
  };
  for (std::size_t i = 0; i < addresses->size(); ++i) {
    const routing::replica_address& address = (*addresses)[i];
    if (!address.local) {
      replicas.push_back({.name = address.to_string(), .actor = {}, .owned = false});
      continue;
    }
    auto spawned = spawn_described_engine(system, config);
    if (!spawned) {
      stop_spawned();
      return spawned.err();
    }
    if (!model) model = std::move(spawned->model);
    replicas.push_back(
        {.name = "local-" + std::to_string(i), .actor = spawned->actor, .owned = true});
  }
  if (!model) {
    auto described = describe_published(system, config, *addresses, plan);
    if (!described) return described.err();
    model = std::move(*described);
  }
  router_options options;
  options.routing = plan.routing;
  router_actor router = spawn_router(system, std::move(replicas), options);
  for (std::size_t i = 0; i < addresses->size(); ++i) {
    const routing::replica_address& address = (*addresses)[i];
    if (address.local) continue;
    (void)spawn_replica_connector(
        system, router, static_cast<std::uint32_t>(i),
        replica_endpoint{address.host, address.port, plan.secret, model->name});
  }
  spdlog::info("router: {} replicas, routing {}", addresses->size(),
               routing::to_string(plan.routing.policy));
  return spawned_fleet{router, std::move(*model)};
}

}  // namespace pagedserve::actors
