// embed_engine: a CAF application that embeds the engine as one actor of its own actor
// system. Eight client actors each submit a request with themselves as the sink, print
// their tokens as they arrive and then the final with its usage; main waits for them and
// shuts the engine down.
//
//   embed_engine                  the built-in demo model (random weights, token-id prompts)
//   embed_engine --model DIR      a HF checkpoint folder (text prompts through its tokenizer)

#include <CLI/CLI.hpp>

#include <caf/all.hpp>
#include <chrono>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "actors/engine_actor.h"
#include "actors/spawn_engine.h"

namespace {

using namespace pagedserve;
using namespace std::chrono_literals;

constexpr int k_num_clients = 8;
constexpr auto k_request_timeout = 30s;
constexpr auto k_run_timeout = 120s;
constexpr std::uint64_t k_drain_ms = 5000;

struct options {
  std::string model_dir;
  std::uint32_t max_tokens = 16;
};

std::string describe(const token_chunk& chunk) {
  if (!chunk.text.empty()) return '"' + chunk.text + '"';
  std::ostringstream out;
  for (token_id id : chunk.token_ids) out << (out.tellp() > 0 ? " " : "") << id;
  return "ids " + out.str();
}

// Even clients decode greedily, odd ones sample with a fixed seed.
generation_request make_request(const options& opt, int client) {
  generation_request req;
  if (opt.model_dir == "demo-random") {
    req.prompt_token_ids = {1, 10 + client, 20 + client, 30 + client, 40 + client};
    req.sampling.ignore_eos = true;  // random weights: EOS would only cut the demo short
  } else {
    static const char* const prompts[] = {"The capital of France is", "Once upon a time",
                                          "The three primary colors are", "def fibonacci(n):"};
    req.prompt = prompts[client % 4];
  }
  req.sampling.max_tokens = opt.max_tokens;
  req.sampling.temperature = client % 2 == 0 ? 0.0f : 0.8f;
  req.sampling.seed = static_cast<std::uint64_t>(client);
  return req;
}

// One client: submits its request with itself as the sink, prints what comes back.
caf::behavior client_actor(caf::event_based_actor* self, actors::engine_actor engine,
                           generation_request req, int index) {
  self->request(engine, k_request_timeout, actors::submit_atom::value, std::move(req),
                caf::actor_cast<caf::actor>(self))
      .then(
          [self, index](request_id id) {
            caf::aout(self) << "[client " << index << "] accepted as request " << id.value()
                            << std::endl;
          },
          [self, index](caf::error& err) {
            caf::aout(self) << "[client " << index << "] rejected: " << self->system().render(err)
                            << std::endl;
            self->quit(err);
          });
  return {
      [self, index](const token_chunk& chunk) {
        caf::aout(self) << "[client " << index << "] " << describe(chunk) << std::endl;
      },
      [self, index](const request_final& final) {
        caf::aout(self) << "[client " << index << "] done: " << std::string(to_string(final.reason))
                        << (final.text.empty() ? "" : ", tail \"" + final.text + '"') << ", prompt "
                        << final.usage.prompt_tokens << " tokens, completion "
                        << final.usage.completion_tokens << " tokens" << std::endl;
        if (final.finished) self->quit();  // the request's last final
      },
  };
}

// Waits (finitely) until every client has terminated; false on timeout.
bool wait_for_clients(caf::actor_system& system, const std::vector<caf::actor>& clients) {
  caf::scoped_actor self{system};
  for (const caf::actor& c : clients) self->monitor(c);
  bool ok = true;
  for (std::size_t done = 0; ok && done < clients.size();) {
    self->receive([&](caf::down_msg&) { ++done; },
                  caf::after(k_run_timeout) >> [&] { ok = false; });
  }
  return ok;
}

void shut_down(caf::actor_system& system, const actors::engine_actor& engine) {
  caf::scoped_actor self{system};
  self->request(engine, std::chrono::milliseconds(k_drain_ms) + k_request_timeout,
                actors::shutdown_atom::value, k_drain_ms)
      .receive(
          [](const shutdown_report& r) {
            std::printf("engine shut down: %llu drained, %llu cancelled, %llu leaked blocks\n",
                        static_cast<unsigned long long>(r.num_drained),
                        static_cast<unsigned long long>(r.num_cancelled),
                        static_cast<unsigned long long>(r.num_leaked_blocks));
          },
          [&](caf::error& err) {
            std::fprintf(stderr, "shutdown failed: %s\n", system.render(err).c_str());
            caf::anon_send_exit(engine, caf::exit_reason::kill);
          });
}

int run(const options& opt) {
  caf::actor_system_config cfg;  // must outlive the system
  actors::add_engine_message_types(cfg);
  cfg.set("scheduler.max-threads", std::size_t{4});
  caf::actor_system system{cfg};

  engine_config config;  // empty model fields: the built-in demo model, pagedserve-demo
  config.model_dir = opt.model_dir;
  config.sched.max_num_seqs = 16;
  auto engine = actors::spawn_engine(system, std::move(config));
  if (!engine) {
    std::fprintf(stderr, "cannot start the engine: %s\n", engine.err().message.c_str());
    return 1;
  }

  std::vector<caf::actor> clients;
  for (int i = 0; i < k_num_clients; ++i) {
    clients.push_back(system.spawn(client_actor, *engine, make_request(opt, i), i));
  }
  const bool finished = wait_for_clients(system, clients);
  if (!finished) {
    std::fprintf(stderr, "clients did not finish within the timeout\n");
    for (const caf::actor& c : clients) caf::anon_send_exit(c, caf::exit_reason::kill);
  }
  shut_down(system, *engine);
  system.await_all_actors_done();
  return finished ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("Embed the pagedserve engine in a CAF application");
  options opt;
  app.add_option("--model", opt.model_dir,
                 "HF checkpoint folder, or demo-random (default: the built-in pagedserve-demo)");
  app.add_option("--max-tokens", opt.max_tokens, "tokens per request")->check(CLI::Range(1, 4096));
  CLI11_PARSE(app, argc, argv);
  return run(opt);
}
