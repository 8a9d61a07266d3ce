// pagedserve-test-gate-client: a CAF node that talks to a published engine's gate the way a
// stranger would, for tests/net/e2e/replicas.mjs. Prints one line per step:
//   submit-before-join: accepted | refused: <why>
//   join: ok | refused: <why>
//   submit-after-join: accepted | refused: <why>      (only after a successful join)
// Usage: pagedserve-test-gate-client --port N [--secret S]. Exit 0 once the steps ran, 1 when
// the gate cannot be reached.

#include <caf/all.hpp>
#include <caf/io/all.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "actors/engine_errors.h"
#include "actors/gate_address.h"
#include "actors/spawn_engine.h"

namespace {

using namespace pagedserve;
using namespace pagedserve::actors;

// A sink that ignores what it gets (the request, if accepted, is cancelled at once). The
// unused argument: CAF 0.17 spawning a function without arguments dereferences an empty
// shared_ptr (UBSan reports it).
caf::behavior quiet_sink(caf::event_based_actor*, int /*unused*/) {
  return {[](const token_chunk&) {}, [](const request_final&) {}};
}

void try_submit(caf::actor_system& system, const engine_actor& engine, const char* step) {
  caf::scoped_actor self{system};
  generation_request r;
  r.prompt_token_ids = {1, 2, 3};
  r.sampling.max_tokens = 2;
  const caf::actor sink = system.spawn(quiet_sink, 0);
  self->request(engine, std::chrono::seconds(10), submit_atom::value, r, sink)
      .receive(
          [&](request_id id) {
            std::printf("%s: accepted\n", step);
            self->send(engine, cancel_atom::value, id);
          },
          [&](caf::error& err) {
            std::printf("%s: refused: %s\n", step, error_message(err).c_str());
          });
  std::fflush(stdout);
  caf::anon_send_exit(sink, caf::exit_reason::user_shutdown);
}

}  // namespace

int main(int argc, char** argv) {
  std::uint16_t port = 0;
  std::string secret;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string_view flag = argv[i];
    if (flag == "--port") port = static_cast<std::uint16_t>(std::atoi(argv[i + 1]));
    if (flag == "--secret") secret = argv[i + 1];
  }
  caf::actor_system_config cfg;
  cfg.load<caf::io::middleman>();
  add_engine_message_types(cfg);
  caf::actor_system system{cfg};
  auto gate = connect_gate_blocking(system, "127.0.0.1", port);
  if (!gate) {
    std::fprintf(stderr, "cannot reach the gate: %s\n", system.render(gate.error()).c_str());
    return 1;
  }
  try_submit(system, caf::actor_cast<engine_actor>(*gate), "submit-before-join");
  std::optional<engine_actor> engine;
  {
    caf::scoped_actor self{system};
    self->request(*gate, std::chrono::seconds(10), join_atom::value, secret)
        .receive(
            [&](engine_actor& e, published_model&) {
              std::printf("join: ok\n");
              engine = std::move(e);
            },
            [&](caf::error& err) {
              std::printf("join: refused: %s\n", error_message(err).c_str());
            });
    std::fflush(stdout);
  }
  if (engine) try_submit(system, *engine, "submit-after-join");
  return 0;
}
