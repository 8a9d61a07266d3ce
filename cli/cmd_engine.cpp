// pagedserve engine: one engine (model, backend, KV cache) without HTTP, published with
// CAF's middleman for routers (`pagedserve serve` with `replicas: [HOST:PORT, ...]`). It
// takes serve's configuration (file and flags; the HTTP keys are ignored) and needs
// `publish`. Prints "published on HOST:PORT" on stdout once reachable (the chosen port when
// 0). SIGINT/SIGTERM drain for shutdown_timeout_s, as serve does. Exit codes as serve's.

#include <spdlog/spdlog.h>

#include <caf/all.hpp>
#include <caf/io/all.hpp>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "actors/engine_gate.h"
#include "actors/spawn_engine.h"
#include "cli/command.h"
#include "net/config/serve_args.h"
#include "runtime/routing/replica_address.h"

namespace pagedserve::cli {
namespace {

using namespace std::chrono_literals;

volatile std::sig_atomic_t g_stop = 0;
void on_signal(int) { g_stop = 1; }

// Blocks until the engine is gone; a signal asks it to drain for `drain` first. True when
// it ended because of a signal, false when it died on its own.
bool wait_for_engine(caf::actor_system& system, const actors::engine_actor& engine,
                     std::chrono::milliseconds drain) {
  caf::scoped_actor self{system};
  self->monitor(engine);
  bool stopping = false;
  for (bool down = false; !down;) {
    self->receive([&](caf::down_msg&) { down = true; },
                  caf::after(100ms) >>
                      [&] {
                        if (g_stop == 0 || std::exchange(stopping, true)) return;
                        spdlog::info("shutting down: draining for up to {} ms", drain.count());
                        self->request(engine, drain + 30s, actors::shutdown_atom::value,
                                      static_cast<std::uint64_t>(drain.count()))
                            .receive(
                                [](const shutdown_report& r) {
                                  spdlog::info("shut down: {} drained, {} cancelled", r.num_drained,
                                               r.num_cancelled);
                                },
                                [&](caf::error& err) {
                                  spdlog::error("shutdown failed: {}", system.render(err));
                                  caf::anon_send_exit(engine, caf::exit_reason::kill);
                                });
                      });
  }
  return stopping;
}

int run_engine(int argc, char** argv) {
  const std::vector<std::string_view> args(argv + 1, argv + argc);
  auto parsed = net::parse_serve_args(args);
  if (!parsed) {
    std::fprintf(stderr, "pagedserve engine: %s\n", parsed.err().message.c_str());
    return 2;
  }
  if (parsed->help) {
    std::fputs("pagedserve engine --publish HOST:PORT [serve's flags: --model, ...]\n", stdout);
    std::fputs(net::serve_usage().c_str(), stdout);
    return 0;
  }
  const net::server_config& config = parsed->config;
  spdlog::set_level(spdlog::level::from_str(config.log_level));
  if (config.publish.empty()) {
    std::fprintf(stderr, "pagedserve engine: --publish HOST:PORT is required\n");
    return 2;
  }
  const auto where = routing::parse_publish_address(config.publish).value();
  caf::actor_system_config cfg;
  actors::configure_engine_system(cfg, true);
  caf::actor_system system{cfg};
  auto spawned = actors::spawn_described_engine(system, config.engine);
  if (!spawned) {
    spdlog::error("cannot start the engine: {}", spawned.err().message);
    return exit_status_for(spawned.err().code);
  }
  const actors::engine_gate_actor gate = actors::spawn_engine_gate(
      system, spawned->actor, actors::to_published(spawned->model), config.engine_secret);
  auto port = system.middleman().publish(gate, where.port, where.host.c_str(), true);
  if (!port) {
    spdlog::error("cannot publish on {}: {}", config.publish, system.render(port.error()));
    caf::anon_send_exit(spawned->actor, caf::exit_reason::kill);
    return 1;
  }
  if (config.engine_secret.empty())
    spdlog::warn("published without engine_secret: anyone who reaches the port may submit");
  routing::replica_address shown = where;
  shown.port = *port;
  std::printf("published on %s\n", shown.to_string().c_str());
  std::fflush(stdout);
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  const bool asked = wait_for_engine(
      system, spawned->actor,
      std::chrono::milliseconds(static_cast<long>(config.shutdown_timeout_s * 1000)));
  if (!asked) spdlog::error("the engine stopped on its own");
  return asked ? 0 : 1;
}

const command_registration registration{
    {"engine", "one engine without HTTP, published for routers (--publish HOST:PORT)",
     &run_engine}};

}  // namespace
}  // namespace pagedserve::cli
