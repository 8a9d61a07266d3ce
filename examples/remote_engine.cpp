// remote_engine: the engine actor published with CAF's middleman and driven from another
// process. Every message that crosses the network is registered on both sides by
// add_engine_message_types().
//
//   remote_engine serve [--port 0] [--model DIR]
//       publishes the engine on 127.0.0.1; prints "port N" (the chosen port when 0) on the
//       first line of stdout; exits when the engine has shut down (a shutdown_atom from a
//       client, or SIGINT/SIGTERM, which drain for --drain-ms first).
//   remote_engine client --port N [--requests 4] [--max-tokens 16] [--shutdown]
//       submits requests with sink actors in this process, prints their tokens and finals;
//       with --shutdown then shuts the server's engine down.

#include <CLI/CLI.hpp>

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <caf/all.hpp>
#include <caf/io/all.hpp>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "actors/engine_actor.h"
#include "actors/spawn_engine.h"

namespace {

using namespace pagedserve;
using namespace std::chrono_literals;

constexpr auto k_request_timeout = 30s;
constexpr auto k_run_timeout = 120s;
constexpr auto k_poll_interval = 100ms;  // how often serve looks at the signal flag

struct options {
  std::uint16_t port = 0;
  std::string model_dir;
  std::uint64_t drain_ms = 5000;
  int num_requests = 4;
  std::uint32_t max_tokens = 16;
  bool shutdown = false;
};

volatile std::sig_atomic_t g_stop_requested = 0;

void on_signal(int) { g_stop_requested = 1; }

// Both nodes: the middleman, the engine's message types, and heartbeats so that a frozen
// peer is noticed (off by default in 0.17.6; a dead remote actor only times out otherwise).
void configure(caf::actor_system_config& cfg) {
  cfg.load<caf::io::middleman>();
  actors::add_engine_message_types(cfg);
  cfg.set("scheduler.max-threads", std::size_t{4});
  cfg.set("middleman.heartbeat-interval", caf::timespan{1s});
  cfg.set("middleman.connection-timeout", caf::timespan{10s});
}

void print_report(const shutdown_report& r) {
  std::printf("shutdown: %llu drained, %llu cancelled, %llu leaked blocks%s\n",
              static_cast<unsigned long long>(r.num_drained),
              static_cast<unsigned long long>(r.num_cancelled),
              static_cast<unsigned long long>(r.num_leaked_blocks),
              r.timed_out ? " (drain timed out)" : "");
  std::fflush(stdout);
}

// Blocks until the engine terminates; on a signal asks it to drain and shut down first.
void wait_for_engine(caf::actor_system& system, const actors::engine_actor& engine,
                     std::uint64_t drain_ms) {
  caf::scoped_actor self{system};
  self->monitor(engine);
  bool stopping = false;
  for (bool down = false; !down;) {
    self->receive([&](caf::down_msg&) { down = true; },
                  caf::after(k_poll_interval) >>
                      [&] {
                        if (g_stop_requested == 0 || stopping) return;
                        stopping = true;
                        self->request(engine,
                                      std::chrono::milliseconds(drain_ms) + k_request_timeout,
                                      actors::shutdown_atom::value, drain_ms)
                            .receive([](const shutdown_report& r) { print_report(r); },
                                     [&](caf::error& err) {
                                       std::fprintf(stderr, "shutdown failed: %s\n",
                                                    system.render(err).c_str());
                                       caf::anon_send_exit(engine, caf::exit_reason::kill);
                                     });
                      });
  }
}

int serve(const options& opt) {
  caf::actor_system_config cfg;
  configure(cfg);
  caf::actor_system system{cfg};
  engine_config config;  // empty model fields: the built-in demo model, pagedserve-demo
  config.model_dir = opt.model_dir;
  config.sched.max_num_seqs = 16;
  auto engine = actors::spawn_engine(system, std::move(config));
  if (!engine) {
    std::fprintf(stderr, "cannot start the engine: %s\n", engine.err().message.c_str());
    return 1;
  }
  auto port = system.middleman().publish(*engine, opt.port, "127.0.0.1");
  if (!port) {
    std::fprintf(stderr, "cannot publish the engine: %s\n", system.render(port.error()).c_str());
    caf::anon_send_exit(*engine, caf::exit_reason::kill);
    return 1;
  }
  std::printf("port %u\n", static_cast<unsigned>(*port));
  std::fflush(stdout);
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  wait_for_engine(system, *engine, opt.drain_ms);
  std::fprintf(stderr, "engine stopped; exiting\n");
  return 0;
}

std::string describe(const token_chunk& chunk) {
  if (!chunk.text.empty()) return '"' + chunk.text + '"';
  std::ostringstream out;
  for (token_id id : chunk.token_ids) out << (out.tellp() > 0 ? " " : "") << id;
  return "ids " + out.str();
}

// A sink in this process: the server's engine sends it chunks and the final over the
// network. It also quits when the engine (or the connection to it) goes down.
caf::behavior print_sink(caf::event_based_actor* self, int index, actors::engine_actor engine) {
  self->monitor(engine);
  self->set_down_handler([self, index](caf::down_msg& msg) {
    caf::aout(self) << "[request " << index
                    << "] engine lost: " << self->system().render(msg.reason) << std::endl;
    self->quit(msg.reason);
  });
  return {
      [self, index](const token_chunk& chunk) {
        caf::aout(self) << "[request " << index << "] " << describe(chunk) << std::endl;
      },
      [self, index](const request_final& final) {
        caf::aout(self) << "[request " << index
                        << "] done: " << std::string(to_string(final.reason)) << ", completion "
                        << final.usage.completion_tokens << " tokens" << std::endl;
        if (final.finished) self->quit();  // the request's last final
      },
  };
}

generation_request make_request(const options& opt, int index) {
  generation_request req;
  req.prompt_token_ids = {1, 100 + index, 200 + index, 300 + index};
  req.sampling.max_tokens = opt.max_tokens;
  req.sampling.ignore_eos = true;
  req.sampling.temperature = 0.0f;
  return req;
}

int client(const options& opt) {
  caf::actor_system_config cfg;
  configure(cfg);
  caf::actor_system system{cfg};
  auto engine = system.middleman().remote_actor<actors::engine_actor>("127.0.0.1", opt.port);
  if (!engine) {
    std::fprintf(stderr, "cannot reach the engine: %s\n", system.render(engine.error()).c_str());
    return 1;
  }
  bool ok = true;
  std::vector<caf::actor> sinks;
  {
    caf::scoped_actor self{system};
    for (int i = 0; i < opt.num_requests; ++i) {
      caf::actor sink = system.spawn(print_sink, i, *engine);
      self->monitor(sink);
      self->request(*engine, k_request_timeout, actors::submit_atom::value, make_request(opt, i),
                    sink)
          .receive(
              [&](request_id id) {
                std::printf("request %d is %llu\n", i, static_cast<unsigned long long>(id.value()));
              },
              [&](caf::error& err) {
                std::fprintf(stderr, "submit failed: %s\n", system.render(err).c_str());
                caf::anon_send_exit(sink, caf::exit_reason::kill);
                ok = false;
              });
      sinks.push_back(sink);
    }
    for (std::size_t done = 0; done < sinks.size();) {
      self->receive([&](caf::down_msg&) { ++done; },
                    caf::after(k_run_timeout) >>
                        [&] {
                          std::fprintf(stderr, "requests did not finish in time\n");
                          for (const caf::actor& s : sinks)
                            caf::anon_send_exit(s, caf::exit_reason::kill);
                          done = sinks.size();
                          ok = false;
                        });
    }
    if (opt.shutdown) {
      self->request(*engine, std::chrono::milliseconds(opt.drain_ms) + k_request_timeout,
                    actors::shutdown_atom::value, opt.drain_ms)
          .receive([](const shutdown_report& r) { print_report(r); },
                   [&](caf::error& err) {
                     std::fprintf(stderr, "shutdown failed: %s\n", system.render(err).c_str());
                     ok = false;
                   });
    }
  }
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  // stdout carries the port line (and the client's results): logs go to stderr.
  spdlog::set_default_logger(spdlog::stderr_color_mt("remote_engine"));
  CLI::App app("The pagedserve engine across processes (CAF middleman)");
  app.require_subcommand(1);
  options opt;
  CLI::App* serve_cmd = app.add_subcommand("serve", "publish an engine on 127.0.0.1");
  serve_cmd->add_option("--port", opt.port, "TCP port (0: any free one, printed)");
  serve_cmd->add_option(
      "--model", opt.model_dir,
      "HF checkpoint folder, or demo-random (default: the built-in pagedserve-demo)");
  serve_cmd->add_option("--drain-ms", opt.drain_ms, "drain time on SIGINT/SIGTERM");
  CLI::App* client_cmd = app.add_subcommand("client", "submit requests to a served engine");
  client_cmd->add_option("--port", opt.port, "the server's port")->required();
  client_cmd->add_option("--requests", opt.num_requests, "requests to submit")
      ->check(CLI::Range(1, 64));
  client_cmd->add_option("--max-tokens", opt.max_tokens, "tokens per request")
      ->check(CLI::Range(1, 1000));
  client_cmd->add_flag("--shutdown", opt.shutdown, "shut the server's engine down afterwards");
  client_cmd->add_option("--drain-ms", opt.drain_ms, "drain time for --shutdown");
  CLI11_PARSE(app, argc, argv);
  return serve_cmd->parsed() ? serve(opt) : client(opt);
}
