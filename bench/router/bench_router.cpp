// bench_router: what the router (actors/router_actor.h) adds, measured against the same
// engine driven directly, in one run and one actor system:
//   per request  N sequential requests of one token each, direct and through a router over
//                one replica: the median time from submit to the accepting reply (where the
//                router's forwarded submit, its reply and its bookkeeping are), and from
//                submit to the final (dominated by the model's step);
//   per token    one long greedy stream, direct and through the router: tokens go replica ->
//                sink in both (no hop through the router), so the rates should match.
// Rounds alternate direct and routed so that drift on a shared machine hits both.
//   bench_router [requests=2000] [stream_tokens=2000] [rounds=3]

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <memory>
#include <vector>

#include "actors/router_actor.h"
#include "actors/spawn_engine.h"

namespace {

using namespace pagedserve;
using namespace pagedserve::actors;
using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point start) {
  return std::chrono::duration<double>(clock_type::now() - start).count();
}

caf::behavior final_sink(caf::event_based_actor* self, std::shared_ptr<std::promise<void>> done) {
  return {
      [](const token_chunk&) {},
      [self, done](const request_final&) {
        done->set_value();
        self->quit();
      },
  };
}

struct timing {
  double accepted_s = 0.0;  // submit -> the id
  double final_s = 0.0;     // submit -> the final
};

// One request of `max_tokens` through `target`.
timing one_request(caf::actor_system& system, const engine_actor& target, std::uint32_t max_tokens,
                   token_id salt) {
  generation_request r;
  r.prompt_token_ids = {1, 2 + salt % 200, 3};
  r.sampling.max_tokens = max_tokens;
  r.sampling.ignore_eos = true;
  r.sampling.temperature = 0.0f;
  auto done = std::make_shared<std::promise<void>>();
  std::future<void> finished = done->get_future();
  const auto start = clock_type::now();
  caf::actor sink = system.spawn(final_sink, done);
  caf::scoped_actor self{system};
  bool ok = true;
  timing t;
  self->request(target, std::chrono::seconds(60), submit_atom::value, r, sink)
      .receive([&](request_id) { t.accepted_s = seconds_since(start); },
               [&](caf::error&) { ok = false; });
  if (!ok || finished.wait_for(std::chrono::seconds(60)) != std::future_status::ready) {
    std::fprintf(stderr, "bench_router: a request failed\n");
    std::exit(1);
  }
  t.final_s = seconds_since(start);
  return t;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Medians in microseconds: {accepted, final}, `n` requests alternating direct and routed.
struct medians {
  double direct_accept_us, routed_accept_us, direct_final_us, routed_final_us;
};

medians per_request(caf::actor_system& system, const engine_actor& direct,
                    const engine_actor& routed, int n) {
  std::vector<double> da, ra, df, rf;
  for (int i = 0; i < n; ++i) {
    const timing d = one_request(system, direct, 1, static_cast<token_id>(i));
    const timing r = one_request(system, routed, 1, static_cast<token_id>(i));
    da.push_back(d.accepted_s * 1e6);
    df.push_back(d.final_s * 1e6);
    ra.push_back(r.accepted_s * 1e6);
    rf.push_back(r.final_s * 1e6);
  }
  return {median(da), median(ra), median(df), median(rf)};
}

engine_config config() {
  engine_config c;
  c.model_dir = "demo-random";
  c.sched.max_model_len = 4096;
  c.sched.max_num_seqs = 8;
  c.sched.enable_prefix_caching = false;  // every request does the same work
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  const int requests = argc > 1 ? std::atoi(argv[1]) : 2000;
  const auto stream_tokens = static_cast<std::uint32_t>(argc > 2 ? std::atoi(argv[2]) : 2000);
  const int rounds = argc > 3 ? std::atoi(argv[3]) : 3;
  caf::actor_system_config cfg;
  add_engine_message_types(cfg);
  cfg.set("scheduler.max-threads", std::size_t{4});
  cfg.set("work-stealing.aggressive-poll-attempts", std::size_t{0});
  cfg.set("work-stealing.moderate-poll-attempts", std::size_t{0});
  caf::actor_system system{cfg};
  auto engine = spawn_engine(system, config());
  if (!engine) {
    std::fprintf(stderr, "bench_router: %s\n", engine.err().message.c_str());
    return 1;
  }
  const engine_actor router =
      spawn_router(system, {{.name = "local-0", .actor = *engine, .owned = true}}, {});
  (void)one_request(system, *engine, 8, 0);  // warm up both paths
  (void)one_request(system, router, 8, 0);
  std::printf("medians of %d requests per round (us); tok/s of one %u-token greedy stream\n",
              requests, stream_tokens);
  std::printf("%-6s %13s %13s %9s %13s %13s %9s %12s %12s %7s\n", "round", "direct accept",
              "routed accept", "+router", "direct final", "routed final", "+router", "direct tok/s",
              "routed tok/s", "ratio");
  std::vector<double> accept_costs;
  std::vector<double> rate_ratios;
  for (int round = 0; round < rounds; ++round) {
    const medians m = per_request(system, *engine, router, requests);
    const double direct_rate =
        stream_tokens / one_request(system, *engine, stream_tokens, 7).final_s;
    const double routed_rate =
        stream_tokens / one_request(system, router, stream_tokens, 7).final_s;
    accept_costs.push_back(m.routed_accept_us - m.direct_accept_us);
    rate_ratios.push_back(routed_rate / direct_rate);
    std::printf("%-6d %13.1f %13.1f %9.1f %13.1f %13.1f %9.1f %12.0f %12.0f %7.3f\n", round,
                m.direct_accept_us, m.routed_accept_us, m.routed_accept_us - m.direct_accept_us,
                m.direct_final_us, m.routed_final_us, m.routed_final_us - m.direct_final_us,
                direct_rate, routed_rate, routed_rate / direct_rate);
  }
  std::printf(
      "router cost per request (submit -> accepted), median over rounds: %.1f us; "
      "streamed tok/s routed / direct: %.3f\n",
      median(accept_costs), median(rate_ratios));
  caf::anon_send_exit(router, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(*engine, caf::exit_reason::user_shutdown);
  return 0;
}
