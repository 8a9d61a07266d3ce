// engine: the CAF-free facade over the engine actor. It owns a private actor system (config,
// system, engine handle, in that order so they are torn down in reverse). Each submit spawns
// one small sink actor that sends the submit itself and turns the reply and the engine's
// messages into callback calls; a sink sees one request only, so its callbacks run in order
// and never concurrently with each other. The blocking submit() and stats() wait on the
// asynchronous forms.
//
// Shutdown hazards (CAF-0.17-NOTES.md): every round trip has a finite timeout; shutdown's
// scoped_actor lives in an inner scope, so none is alive when await_all_actors_done() runs;
// a sink that never gets its finals (the engine died) still quits, because it monitors the
// engine and ends the stream with an error final when the engine goes down. Submission
// handles reach the engine through engine_link, which shutdown cuts before the actor system
// goes away.

#include "actors/engine.h"

#include <algorithm>
#include <atomic>
#include <caf/io/all.hpp>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "actors/engine_errors.h"
#include "actors/messages.h"
#include "actors/replica_fleet.h"
#include "actors/spawn_engine.h"

namespace pagedserve {
namespace {

using namespace std::chrono_literals;

// A round trip to a healthy engine takes microseconds; this only bounds a wedged one.
constexpr auto k_request_timeout = 30s;
// stats_async answers with defaults rather than wait longer than this.
constexpr auto k_stats_timeout = 5s;
// Shutdown waits for the engine's own drain timeout plus this much for the cancellations.
constexpr auto k_shutdown_slack = 30s;
constexpr auto k_destructor_timeout = 10s;

// Set while a user callback runs on this thread: shutdown() from there would wait for the
// very actor that is running it.
thread_local bool t_in_callback = false;

// Runs a user callback; false if it threw (the exception stops there).
template <class F, class... Args>
bool call_user(const F& f, Args&&... args) {
  t_in_callback = true;
  try {
    f(std::forward<Args>(args)...);
  } catch (...) {
    t_in_callback = false;
    std::fprintf(stderr, "pagedserve::engine: a callback threw; its request is cancelled\n");
    return false;
  }
  t_in_callback = false;
  return true;
}

}  // namespace

namespace engine_detail {

// How submissions reach the engine after start: cut at shutdown, so a submission that
// outlives the engine cancels nothing and holds no actor handle past the actor system.
struct engine_link {
  std::mutex mutex;
  std::optional<actors::engine_actor> actor;  // reset once the engine's actors are done
  std::atomic<bool> stopping{false};

  void send_cancel(request_id id) {
    const std::lock_guard<std::mutex> lock(mutex);
    if (actor) caf::anon_send(*actor, actors::cancel_atom::value, id);
  }
};

// The shared part of a submission handle and its sink. Whichever of cancel() and the
// acceptance comes second sends the engine cancel, so it is sent exactly once, and only
// with a known id.
struct submission_control final : cancellable {
  std::mutex mutex;
  std::optional<request_id> id;  // once accepted
  bool cancel_requested = false;
  std::shared_ptr<engine_link> link;

  void cancel() override {
    std::optional<request_id> known;
    {
      const std::lock_guard<std::mutex> lock(mutex);
      if (cancel_requested) return;
      cancel_requested = true;
      known = id;
    }
    if (known) link->send_cancel(*known);
  }
  // Records the id; true if a cancel came first (the caller then sends it).
  bool accept(request_id accepted) {
    const std::lock_guard<std::mutex> lock(mutex);
    id = accepted;
    return cancel_requested;
  }
};

}  // namespace engine_detail

namespace {

using engine_detail::engine_link;
using engine_detail::submission_control;

// One request's events to one callback. The sink is its own actor: it submits, so the
// engine's reply (acceptance or refusal) reaches it before any event; it ends after the
// request's last final (request_final::finished: the engine counts the completions).
struct sink_state {
  engine_callback callback;
  accept_callback accepted;
  std::shared_ptr<submission_control> control;
  std::vector<std::uint8_t> finished;  // per completion index: 1 once its final came
  std::optional<request_id> id;        // once accepted
  std::vector<engine_event> early;     // events before the acceptance (kept in order)
  bool engine_down = false;
  caf::actor_addr engine;  // monitored; demonitored on the way out (leave)
};

// Every way out of a sink. CAF 0.17 keeps a monitor in place after the monitoring actor
// ends, and with it this actor's address: a weak reference that keeps the actor's whole
// storage (about 1.1 KB) allocated until the engine's actor ends, one per request served.
void leave(caf::event_based_actor* self, sink_state& st) {
  self->demonitor(st.engine);
  self->quit();
}

void deliver(caf::event_based_actor* self, sink_state& st, const engine_event& ev) {
  // An exception must not escape a handler (it would kill the actor anyway): stop the
  // stream instead; the engine sees the sink go down and cancels the request.
  if (!call_user(st.callback, ev)) leave(self, st);
}

void finish(caf::event_based_actor* self, sink_state& st, const request_final& final) {
  if (final.index >= st.finished.size()) return;  // not ours
  if (!st.finished[final.index]) {
    st.finished[final.index] = 1;
    deliver(self, st, final);
  }
  // The request's last final. A router's failover repeats every completion's (it does not
  // know which ended), so the one marked last may repeat a final already delivered.
  if (final.finished) leave(self, st);
}

void on_event(caf::event_based_actor* self, sink_state& st, engine_event ev) {
  if (!st.id) {
    st.early.push_back(std::move(ev));
    return;
  }
  if (const auto* final = std::get_if<request_final>(&ev)) {
    finish(self, st, *final);
  } else {
    deliver(self, st, ev);
  }
}

// Ends every completion still open with an error final (the engine went away).
void end_with_error(caf::event_based_actor* self, sink_state& st) {
  const auto num_open =
      static_cast<std::uint32_t>(std::count(st.finished.begin(), st.finished.end(), 0));
  for (std::uint32_t i = 0, num_left = num_open; i < st.finished.size(); ++i) {
    if (st.finished[i]) continue;
    request_final final;
    final.request = *st.id;
    final.index = i;
    final.reason = finish_reason::error;
    final.error_message = "the engine stopped before this request finished";
    final.finished = --num_left == 0;
    finish(self, st, final);
  }
  leave(self, st);
}

error to_error(const caf::error& err, bool stopping);

void on_accepted(caf::event_based_actor* self, sink_state& st, request_id id) {
  st.id = id;
  const bool cancel_first = st.control->accept(id);
  if (!call_user(st.accepted, result<request_id>(id))) {
    leave(self, st);  // the engine sees the sink go down and cancels the request
    return;
  }
  if (cancel_first) st.control->link->send_cancel(id);
  for (engine_event& ev : std::exchange(st.early, {})) on_event(self, st, std::move(ev));
  if (st.engine_down) end_with_error(self, st);
}

void on_refused(caf::event_based_actor* self, sink_state& st, const caf::error& err) {
  // After a timeout the engine may still have the request: it cancels it when this actor
  // goes down. Either way the event callback stays silent.
  st.early.clear();
  (void)call_user(st.accepted, result<request_id>(to_error(err, st.control->link->stopping)));
  leave(self, st);
}

caf::behavior sink_actor(caf::event_based_actor* self, std::shared_ptr<sink_state> st,
                         actors::engine_actor engine, generation_request request) {
  st->engine = engine.address();
  self->monitor(engine);
  // The engine went away without ending these completions: end them here so the caller
  // sees one final per completion and this actor does not outlive the system. Before the
  // acceptance the reply is still due (a refusal, at the latest the timeout): wait for it.
  self->set_down_handler([self, st](caf::down_msg&) {
    st->engine_down = true;
    if (st->id) end_with_error(self, *st);
  });
  self->request(engine, k_request_timeout, actors::submit_atom::value, std::move(request),
                caf::actor_cast<caf::actor>(self))
      .then([self, st](request_id id) { on_accepted(self, *st, id); },
            [self, st](caf::error& err) { on_refused(self, *st, err); });
  return {
      [self, st](token_chunk& chunk) { on_event(self, *st, std::move(chunk)); },
      [self, st](request_final& final) { on_event(self, *st, std::move(final)); },
      [self, st](request_lifecycle& lifecycle) { on_event(self, *st, std::move(lifecycle)); },
  };
}

// Asks for the stats once and hands them (or defaults) to `done`.
void stats_actor(caf::event_based_actor* self, actors::engine_actor engine, bool stopping,
                 stats_callback done) {
  if (stopping) {
    (void)call_user(done, engine_stats{});
    return;
  }
  self->request(engine, k_stats_timeout, actors::stats_atom::value)
      .then([done](engine_stats& s) { (void)call_user(done, std::move(s)); },
            [done](caf::error&) { (void)call_user(done, engine_stats{}); });
}

error_code to_error_code(actors::engine_errc errc) {
  switch (errc) {
    case actors::engine_errc::invalid_request:
      return error_code::invalid_argument;
    case actors::engine_errc::capacity_exceeded:
      return error_code::capacity_exceeded;
    case actors::engine_errc::queue_full:
      return error_code::overloaded;
    case actors::engine_errc::shutting_down:
      return error_code::unavailable;
    case actors::engine_errc::step_failed:
    case actors::engine_errc::internal:
      return error_code::internal;
  }
  return error_code::internal;
}

error to_error(const caf::error& err, bool stopping) {
  const std::optional<actors::engine_errc> errc = actors::engine_errc_of(err);
  if (!errc) {
    // Not the engine's own refusal: its actors are gone (or wedged).
    if (stopping) return make_error(error_code::unavailable, "the engine is shutting down");
    return make_error(error_code::internal, "engine: " + actors::error_message(err));
  }
  return make_error(to_error_code(*errc), actors::error_message(err));
}

}  // namespace

struct engine::impl {
  explicit impl(bool networked = false) : system{actors::configure_engine_system(cfg, networked)} {}
  caf::actor_system_config cfg;
  caf::actor_system system;
  actors::engine_actor actor;
  std::optional<actors::router_actor> router;  // the actor, when it is a router
  engine_model_info model;
  std::shared_ptr<engine_link> link = std::make_shared<engine_link>();

  std::mutex shutdown_mutex;  // one shutdown at a time; later ones return the first report
  std::optional<shutdown_report> report;
};

engine::engine(std::unique_ptr<impl> p) : impl_(std::move(p)) {}

engine::~engine() {
  if (impl_) shutdown(k_destructor_timeout);
}

result<std::unique_ptr<engine>> engine::start(engine_config config) {
  return start(std::move(config), replica_plan{});
}

result<std::unique_ptr<engine>> engine::start(engine_config config, replica_plan plan) {
  auto p = std::make_unique<impl>(actors::plan_needs_network(plan));
  if (!plan.replicas.empty()) {
    auto spawned = actors::spawn_replica_fleet(p->system, config, plan);
    if (!spawned) return spawned.err();
    p->router = spawned->router;
    p->actor = spawned->router;
    p->model = std::move(spawned->model);
    p->link->actor = p->actor;
    return std::unique_ptr<engine>(new engine(std::move(p)));
  }
  auto spawned = actors::spawn_described_engine(p->system, std::move(config));
  if (!spawned) return spawned.err();
  p->actor = spawned->actor;
  p->model = std::move(spawned->model);
  p->link->actor = p->actor;
  return std::unique_ptr<engine>(new engine(std::move(p)));
}

submission engine::submit_async(generation_request request, engine_callback callback,
                                accept_callback accepted) {
  auto control = std::make_shared<submission_control>();
  control->link = impl_->link;
  auto st = std::make_shared<sink_state>();
  st->callback = std::move(callback);
  st->accepted = std::move(accepted);
  st->control = control;
  st->finished.assign(std::max<std::uint32_t>(request.sampling.n, 1), 0);
  // Spawning only enqueues the actor: the submit itself runs on an engine thread.
  impl_->system.spawn(sink_actor, std::move(st), impl_->actor, std::move(request));
  return submission(control);
}

result<request_id> engine::submit(generation_request request, engine_callback callback) {
  // Shared with the acceptance callback, which may still be unwinding when get() returns.
  auto reply = std::make_shared<std::promise<result<request_id>>>();
  std::future<result<request_id>> answer = reply->get_future();
  (void)submit_async(std::move(request), std::move(callback),
                     [reply](result<request_id> r) { reply->set_value(std::move(r)); });
  return answer.get();  // bounded: the sink's request times out
}

void engine::cancel(request_id request) { impl_->link->send_cancel(request); }

engine_stats engine::stats() {
  auto reply = std::make_shared<std::promise<engine_stats>>();
  std::future<engine_stats> answer = reply->get_future();
  stats_async([reply](engine_stats s) { reply->set_value(std::move(s)); });
  return answer.get();  // bounded: k_stats_timeout
}

void engine::stats_async(stats_callback done) {
  impl_->system.spawn(stats_actor, impl_->actor, impl_->link->stopping.load(), std::move(done));
}

const engine_model_info& engine::model() const { return impl_->model; }

void engine::replicas_async(replicas_callback done) {
  if (!impl_->router) {
    (void)call_user(done, std::vector<replica_info>{});
    return;
  }
  if (impl_->link->stopping.load()) {
    (void)call_user(done, std::nullopt);
    return;
  }
  impl_->system.spawn(
      [](caf::event_based_actor* self, actors::router_actor router, replicas_callback callback) {
        self->request(router, k_stats_timeout, actors::replicas_atom::value)
            .then([callback](
                      std::vector<replica_info>& r) { (void)call_user(callback, std::move(r)); },
                  [callback](caf::error&) {
                    (void)call_user(callback, std::vector<replica_info>{});
                  });
      },
      *impl_->router, std::move(done));
}

shutdown_report engine::shutdown(std::chrono::milliseconds timeout) {
  if (t_in_callback) {
    std::fprintf(stderr,
                 "pagedserve::engine: shutdown() (or ~engine) called from an engine "
                 "callback would deadlock; call it from another thread\n");
    std::abort();
  }
  std::lock_guard<std::mutex> lock(impl_->shutdown_mutex);
  if (impl_->report) return *impl_->report;
  impl_->link->stopping.store(true);
  shutdown_report report;
  {
    caf::scoped_actor self{impl_->system};
    const auto deadline = std::chrono::duration_cast<caf::timespan>(timeout + k_shutdown_slack);
    self->request(impl_->actor, deadline, actors::shutdown_atom::value,
                  static_cast<std::uint64_t>(std::max<std::int64_t>(timeout.count(), 0)))
        .receive([&](shutdown_report& r) { report = r; },
                 [&](caf::error& err) {
                   // A wedged engine: kill it; its sinks see it go down and end their
                   // streams, so the wait below still ends.
                   std::fprintf(stderr, "pagedserve::engine: shutdown failed: %s\n",
                                impl_->system.render(err).c_str());
                   report.timed_out = true;
                   caf::anon_send_exit(impl_->actor, caf::exit_reason::kill);
                 });
  }
  // The engine's actors exit by themselves after the reply; the exit covers an engine that
  // does not (it is harmless to one already gone), so the wait below cannot hang on it.
  caf::anon_send_exit(impl_->actor, caf::exit_reason::user_shutdown);
  impl_->system.await_all_actors_done();
  {
    // Submissions that outlive the engine must not reach into a dead actor system.
    const std::lock_guard<std::mutex> link_lock(impl_->link->mutex);
    impl_->link->actor.reset();
  }
  impl_->report = report;
  return report;
}

}  // namespace pagedserve
