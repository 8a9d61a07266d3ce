// The router actor over three engine replicas in one actor system, driven through the
// engine API exactly as one engine is: answers equal one engine's for the same request
// (greedy and seeded), cancel reaches the replica holding the request, a replica killed
// mid-stream ends its requests with error finals at once while the others complete, a
// replica that comes back gets traffic again, prefix_aware keeps a shared prefix on one
// replica. Every wait is a future or a request with a finite timeout.

#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <variant>
#include <vector>

#include "actors/engine_errors.h"
#include "actors/router_actor.h"
#include "actors/spawn_engine.h"

namespace pagedserve::actors {
namespace {

using namespace std::chrono_literals;

constexpr auto k_wait = 60s;  // ASan on 2 busy cores

// Records one request's events; quits after its finals (so the router sees it end).
struct sink_log {
  std::mutex mu;
  std::vector<token_id> tokens;
  std::vector<request_final> finals;
  std::promise<void> first_chunk;
  std::promise<void> done;
  bool first_chunk_set = false;
};

caf::behavior recording_sink(caf::event_based_actor* self, std::shared_ptr<sink_log> log,
                             std::uint32_t n) {
  return {
      [log](token_chunk& chunk) {
        std::lock_guard lock(log->mu);
        log->tokens.insert(log->tokens.end(), chunk.token_ids.begin(), chunk.token_ids.end());
        if (!std::exchange(log->first_chunk_set, true)) log->first_chunk.set_value();
      },
      [self, log, n](request_final& final) {
        std::lock_guard lock(log->mu);
        log->finals.push_back(final);
        if (log->finals.size() == n) {
          log->done.set_value();
          self->quit();
        }
      },
  };
}

struct probe {
  caf::actor sink;
  std::shared_ptr<sink_log> log = std::make_shared<sink_log>();
  std::future<void> first_chunk = log->first_chunk.get_future();
  std::future<void> done = log->done.get_future();
};

engine_config demo_config() {
  engine_config config;
  config.model_dir = "demo-random";  // in memory, byte-level tokenizer
  config.sched.max_model_len = 512;
  config.sched.max_num_seqs = 16;
  config.sched.block_size = 16;
  return config;
}

generation_request request_for(std::vector<token_id> prompt, std::uint32_t max_tokens,
                               float temperature = 0.0f, std::uint32_t n = 1) {
  generation_request r;
  r.prompt_token_ids = std::move(prompt);
  r.sampling.max_tokens = max_tokens;
  r.sampling.temperature = temperature;
  r.sampling.seed = 1234;
  r.sampling.ignore_eos = true;
  r.sampling.n = n;
  return r;
}

bool ready(std::future<void>& f, std::chrono::milliseconds within = k_wait) {
  return f.wait_for(within) == std::future_status::ready;
}

// Three demo engines and a router in one actor system; `reference` is a fourth engine that
// no router knows, for the answers one engine gives.
class router_fixture {
 public:
  explicit router_fixture(routing::routing_policy policy = routing::routing_policy::least_load) {
    add_engine_message_types(cfg_);
    cfg_.set("scheduler.max-threads", 4);
    system_.emplace(cfg_);
    std::vector<router_replica> replicas;
    for (int i = 0; i < 3; ++i) {
      replicas.push_back({.name = "local-" + std::to_string(i), .actor = spawn(), .owned = true});
      engines_.push_back(replicas.back().actor);
    }
    reference_ = spawn();
    router_options options;
    options.routing.policy = policy;
    options.poll_interval = 50ms;
    router_ = spawn_router(*system_, std::move(replicas), options);
  }

  ~router_fixture() {
    caf::anon_send_exit(router_, caf::exit_reason::user_shutdown);
    for (const engine_actor& e : engines_) caf::anon_send_exit(e, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(reference_, caf::exit_reason::user_shutdown);
    router_ = nullptr;
    engines_.clear();
    reference_ = nullptr;
    system_.reset();  // returns once every actor has exited
  }

  engine_actor spawn() {
    auto spawned = spawn_engine(*system_, demo_config());
    EXPECT_TRUE(spawned) << spawned.err().message;
    return spawned ? *spawned : engine_actor{};
  }

  probe submit_ok(const engine_actor& target, const generation_request& request,
                  request_id* id = nullptr) {
    probe p;
    p.sink = system_->spawn(recording_sink, p.log, std::max<std::uint32_t>(request.sampling.n, 1));
    const auto out = submit(target, request, p.sink);
    if (const auto* err = std::get_if<caf::error>(&out)) {
      ADD_FAILURE() << "submit failed: " << system_->render(*err);
    } else if (id != nullptr) {
      *id = std::get<request_id>(out);
    }
    return p;
  }

  std::variant<request_id, caf::error> submit(const engine_actor& target,
                                              const generation_request& request,
                                              const caf::actor& sink) {
    std::variant<request_id, caf::error> out = caf::error{};
    caf::scoped_actor self{*system_};
    self->request(target, k_wait, submit_atom::value, request, sink)
        .receive([&](request_id id) { out = id; }, [&](caf::error& err) { out = std::move(err); });
    return out;
  }

  engine_stats stats() {
    engine_stats out;
    caf::scoped_actor self{*system_};
    self->request(router_, k_wait, stats_atom::value)
        .receive([&](engine_stats s) { out = s; },
                 [&](caf::error& err) { ADD_FAILURE() << system_->render(err); });
    return out;
  }

  engine_stats stats_when_idle() {
    const auto deadline = std::chrono::steady_clock::now() + k_wait;
    engine_stats s = stats();
    while ((s.num_running > 0 || s.num_waiting > 0 || s.kv_usage > 0.0) &&
           std::chrono::steady_clock::now() < deadline) {
      s = stats();
    }
    return s;
  }

  std::vector<replica_status> replicas() {
    std::vector<replica_status> out;
    caf::scoped_actor self{*system_};
    self->request(router_, k_wait, replicas_atom::value)
        .receive([&](std::vector<replica_status>& r) { out = std::move(r); },
                 [&](caf::error& err) { ADD_FAILURE() << system_->render(err); });
    return out;
  }

  [[nodiscard]] engine_actor router() const { return router_; }
  [[nodiscard]] const engine_actor& reference() const { return reference_; }
  [[nodiscard]] const engine_actor& replica(std::size_t i) const { return engines_[i]; }
  router_actor& typed_router() { return router_; }

 private:
  caf::actor_system_config cfg_;
  std::optional<caf::actor_system> system_;
  std::vector<engine_actor> engines_;
  engine_actor reference_;
  router_actor router_;
};

std::vector<token_id> tokens_of(probe& p) {
  std::lock_guard lock(p.log->mu);
  return p.log->tokens;
}

TEST(router_actor, answers_equal_one_engine_and_least_load_uses_every_replica) {
  router_fixture f;
  std::vector<probe> routed;
  std::vector<probe> alone;
  for (int i = 0; i < 12; ++i) {
    const float temperature = i % 2 == 0 ? 0.0f : 0.8f;  // greedy and seeded sampling
    const auto request = request_for({1, 10 + i, 20 + i, 30 + i}, 24, temperature);
    routed.push_back(f.submit_ok(f.router(), request));
    alone.push_back(f.submit_ok(f.reference(), request));
  }
  for (std::size_t i = 0; i < routed.size(); ++i) {
    ASSERT_TRUE(ready(routed[i].done) && ready(alone[i].done)) << i;
    EXPECT_EQ(tokens_of(routed[i]), tokens_of(alone[i])) << i;
    EXPECT_EQ(tokens_of(routed[i]).size(), 24u);
  }
  const std::vector<replica_status> status = f.replicas();
  ASSERT_EQ(status.size(), 3u);
  std::uint64_t num_routed = 0;
  for (const replica_status& s : status) {
    EXPECT_TRUE(s.up);
    // Equal requests sent faster than they finish: 4 each; at least one each in any case.
    EXPECT_GE(s.num_routed, 1u) << s.name;
    num_routed += s.num_routed;
  }
  EXPECT_EQ(num_routed, 12u);
  const engine_stats idle = f.stats_when_idle();
  EXPECT_EQ(idle.num_requests, 12u);
  EXPECT_EQ(idle.num_finished_length, 12u);
  EXPECT_EQ(idle.num_free_blocks, idle.num_total_blocks);
}

TEST(router_actor, cancel_reaches_the_replica_that_holds_the_request) {
  router_fixture f;
  request_id id;
  probe p = f.submit_ok(f.router(), request_for({1, 2, 3}, 400), &id);
  ASSERT_TRUE(ready(p.first_chunk));
  caf::anon_send(f.router(), cancel_atom::value, id);
  ASSERT_TRUE(ready(p.done));
  EXPECT_EQ(p.log->finals.at(0).reason, finish_reason::cancelled);
  EXPECT_LT(p.log->tokens.size(), 400u);
  EXPECT_EQ(f.stats_when_idle().num_cancelled, 1u);
}

TEST(router_actor, a_killed_replica_ends_its_requests_at_once_and_the_rest_go_on) {
  router_fixture f;
  std::vector<probe> probes;
  for (int i = 0; i < 6; ++i)  // two per replica (least load, equal costs)
    probes.push_back(f.submit_ok(f.router(), request_for({1, 40 + i}, 300, 0.0f, 2)));
  for (probe& p : probes) ASSERT_TRUE(ready(p.first_chunk));
  caf::anon_send_exit(f.replica(1), caf::exit_reason::kill);
  std::size_t failed = 0;
  for (probe& p : probes) {
    ASSERT_TRUE(ready(p.done, 1000ms) || ready(p.done)) << "a request never ended";
    const std::lock_guard lock(p.log->mu);
    if (p.log->finals.at(0).reason == finish_reason::error) {
      ++failed;
      EXPECT_NE(p.log->finals.at(0).error_message.find("local-1"), std::string::npos);
      EXPECT_EQ(p.log->finals.size(), 2u);  // one error final per completion
    } else {
      EXPECT_EQ(p.log->tokens.size(), 600u);  // 2 completions x 300
    }
    // Engine or failover: only the request's last final is marked finished.
    ASSERT_EQ(p.log->finals.size(), 2u);
    EXPECT_FALSE(p.log->finals[0].finished);
    EXPECT_TRUE(p.log->finals[1].finished);
  }
  EXPECT_EQ(failed, 2u);
  // New requests go to the two survivors and complete.
  for (int i = 0; i < 4; ++i) {
    probe later = f.submit_ok(f.router(), request_for({1, 60 + i}, 8));
    ASSERT_TRUE(ready(later.done));
    EXPECT_EQ(later.log->finals.at(0).reason, finish_reason::length);
  }
  const std::vector<replica_status> status = f.replicas();
  EXPECT_FALSE(status[1].up);
  EXPECT_TRUE(status[0].up && status[2].up);
  const engine_stats idle = f.stats_when_idle();
  EXPECT_EQ(idle.num_running + idle.num_waiting, 0u);
  EXPECT_DOUBLE_EQ(idle.kv_usage, 0.0);
}

TEST(router_actor, a_replica_that_comes_back_gets_traffic_and_none_up_refuses) {
  router_fixture f;
  for (std::size_t i = 0; i < 3; ++i) caf::anon_send_exit(f.replica(i), caf::exit_reason::kill);
  // Wait until the router has seen all three go down, then a submit is refused with 503.
  const auto deadline = std::chrono::steady_clock::now() + k_wait;
  while (std::chrono::steady_clock::now() < deadline) {
    const auto s = f.replicas();
    if (!s[0].up && !s[1].up && !s[2].up) break;
  }
  probe unused = f.submit_ok(f.reference(), request_for({1}, 1));  // a live sink to offer
  const auto out = f.submit(f.router(), request_for({1, 2}, 4), unused.sink);
  ASSERT_TRUE(std::holds_alternative<caf::error>(out));
  EXPECT_EQ(engine_errc_of(std::get<caf::error>(out)), engine_errc::shutting_down);
  const engine_actor fresh = f.spawn();
  caf::anon_send(f.typed_router(), replica_up_atom::value, std::uint32_t{2}, fresh);
  for (auto until = std::chrono::steady_clock::now() + k_wait;
       std::chrono::steady_clock::now() < until;) {
    if (f.replicas()[2].up) break;
  }
  probe p = f.submit_ok(f.router(), request_for({1, 5, 6}, 6));
  ASSERT_TRUE(ready(p.done));
  EXPECT_EQ(p.log->finals.at(0).reason, finish_reason::length);
  EXPECT_EQ(f.replicas()[2].num_routed, 1u);
  caf::anon_send_exit(fresh, caf::exit_reason::user_shutdown);
}

TEST(router_actor, prefix_aware_keeps_a_shared_prefix_on_one_replica) {
  router_fixture f(routing::routing_policy::prefix_aware);
  std::vector<token_id> shared(48);
  for (std::size_t i = 0; i < shared.size(); ++i) shared[i] = static_cast<token_id>(100 + i);
  for (int i = 0; i < 6; ++i) {
    auto prompt = shared;
    prompt.push_back(200 + i);
    probe p = f.submit_ok(f.router(), request_for(prompt, 4));
    ASSERT_TRUE(ready(p.done));
  }
  std::vector<std::uint64_t> routed;
  for (const replica_status& s : f.replicas()) routed.push_back(s.num_routed);
  std::sort(routed.begin(), routed.end());
  EXPECT_EQ(routed, (std::vector<std::uint64_t>{0, 0, 6}));
  // The replica's own prefix cache confirms it: 5 repeats x 48 cached tokens (3 blocks).
  EXPECT_EQ(f.stats_when_idle().prefix_cache_hits, 5u * 48u);
}

TEST(router_actor, shutdown_drains_every_owned_replica_then_the_router_is_gone) {
  router_fixture f;
  std::vector<probe> probes;
  for (int i = 0; i < 3; ++i)
    probes.push_back(f.submit_ok(f.router(), request_for({1, 70 + i}, 32)));
  std::optional<shutdown_report> report;
  {
    caf::actor_system& sys = f.typed_router().home_system();
    caf::scoped_actor self{sys};
    self->request(f.router(), k_wait, shutdown_atom::value, std::uint64_t{30000})
        .receive([&](shutdown_report r) { report = r; },
                 [&](caf::error& err) { ADD_FAILURE() << sys.render(err); });
  }
  ASSERT_TRUE(report);
  EXPECT_EQ(report->num_drained, 3u);
  EXPECT_EQ(report->num_cancelled, 0u);
  EXPECT_EQ(report->num_leaked_blocks, 0u);
  for (probe& p : probes) ASSERT_TRUE(ready(p.done));
  probe late = f.submit_ok(f.reference(), request_for({1}, 1));
  EXPECT_TRUE(
      std::holds_alternative<caf::error>(f.submit(f.router(), request_for({1, 2}, 4), late.sink)));
}

}  // namespace
}  // namespace pagedserve::actors
