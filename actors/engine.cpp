// engine: the CAF-free facade over the engine actor. It owns a private actor system (config,
// system, engine handle, in that order so they are torn down in reverse). Each submit spawns
// one small sink actor that turns the engine's messages into callback calls; a sink sees one
// request only, so its callbacks run in order and never concurrently with each other.
//
// Shutdown hazards (CAF-0.17-NOTES.md): every blocking round trip uses a scoped_actor in an
// inner scope with a finite timeout, so none is alive when await_all_actors_done() runs; a
// sink that never gets its finals (the engine died) still quits, because it monitors the
// engine and ends the stream with an error final when the engine goes down.

#include "actors/engine.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "actors/engine_errors.h"
#include "actors/messages.h"
#include "actors/spawn_engine.h"

namespace pagedserve {
namespace {

using namespace std::chrono_literals;

// A round trip to a healthy engine takes microseconds; this only bounds a wedged one.
constexpr auto k_request_timeout = 30s;
// Shutdown waits for the engine's own drain timeout plus this much for the cancellations.
constexpr auto k_shutdown_slack = 30s;
constexpr auto k_destructor_timeout = 10s;

// One request's events to one callback. Ends after one final per completion.
struct sink_state {
  engine_callback callback;
  std::vector<std::uint8_t> finished;  // per completion index: 1 once its final came
  std::uint32_t num_finished = 0;
  std::optional<request_id> id;  // learnt from the first event or from submit's reply
  bool engine_down = false;
};

// Set while a user callback runs on this thread: shutdown() from there would wait for the
// very actor that is running it.
thread_local bool t_in_callback = false;

void deliver(caf::event_based_actor* self, sink_state& st, const engine_event& ev) {
  // An exception must not escape a handler (it would kill the actor anyway): stop the
  // stream instead; the engine sees the sink go down and cancels the request.
  try {
    t_in_callback = true;
    st.callback(ev);
    t_in_callback = false;
  } catch (...) {
    t_in_callback = false;
    std::fprintf(stderr, "pagedserve::engine: a callback threw; its request is cancelled\n");
    self->quit();
  }
}

void finish(caf::event_based_actor* self, sink_state& st, const request_final& final) {
  if (final.index >= st.finished.size() || st.finished[final.index]) return;  // not ours
  st.finished[final.index] = 1;
  ++st.num_finished;
  deliver(self, st, final);
  if (st.num_finished == st.finished.size()) self->quit();
}

// Ends every completion still open with an error final (the engine went away).
void end_with_error(caf::event_based_actor* self, sink_state& st) {
  for (std::uint32_t i = 0; i < st.finished.size(); ++i) {
    if (st.finished[i]) continue;
    request_final final;
    final.request = *st.id;
    final.index = i;
    final.reason = finish_kind::error;
    final.error_message = "the engine stopped before this request finished";
    finish(self, st, final);
  }
  self->quit();
}

caf::behavior sink_actor(caf::event_based_actor* self, engine_callback callback,
                         std::uint32_t num_completions, actors::engine_actor engine) {
  auto st = std::make_shared<sink_state>();
  st->callback = std::move(callback);
  st->finished.assign(num_completions, 0);
  self->monitor(engine);
  // The engine went away without ending these completions: end them here so the caller
  // sees one final per completion and this actor does not outlive the system. Until the
  // request is known to be accepted (an id), the submit may still fail: then this actor is
  // killed and the callback must stay silent, so wait for one or the other.
  self->set_down_handler([self, st](caf::down_msg&) {
    st->engine_down = true;
    if (st->id) end_with_error(self, *st);
  });
  return {
      [self, st](request_id id) {
        st->id = id;
        if (st->engine_down) end_with_error(self, *st);
      },
      [self, st](const token_chunk& chunk) {
        st->id = chunk.request;
        deliver(self, *st, chunk);
      },
      [self, st](const request_final& final) {
        st->id = final.request;
        finish(self, *st, final);
      },
  };
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

error to_error(const caf::error& err) {
  const std::optional<actors::engine_errc> errc = actors::engine_errc_of(err);
  if (!errc) return make_error(error_code::internal, "engine: " + actors::error_message(err));
  return make_error(to_error_code(*errc), actors::error_message(err));
}

caf::actor_system_config& configure(caf::actor_system_config& cfg) {
  actors::add_engine_message_types(cfg);
  cfg.set("scheduler.max-threads", std::size_t{4});
  return cfg;
}

}  // namespace

struct engine::impl {
  caf::actor_system_config cfg;
  caf::actor_system system{configure(cfg)};
  actors::engine_actor actor;

  std::mutex shutdown_mutex;  // one shutdown at a time; later ones return the first report
  std::atomic<bool> stopping{false};
  std::optional<shutdown_report> report;
};

engine::engine(std::unique_ptr<impl> p) : impl_(std::move(p)) {}

engine::~engine() {
  if (impl_) shutdown(k_destructor_timeout);
}

result<std::unique_ptr<engine>> engine::start(engine_config config) {
  auto p = std::make_unique<impl>();
  auto actor = actors::spawn_engine(p->system, std::move(config));
  if (!actor) return actor.err();
  p->actor = *actor;
  return std::unique_ptr<engine>(new engine(std::move(p)));
}

result<request_id> engine::submit(generation_request request, engine_callback callback) {
  if (impl_->stopping.load()) {
    return make_error(error_code::unavailable, "the engine is shutting down");
  }
  const std::uint32_t num_completions = std::max<std::uint32_t>(request.n, 1);
  caf::actor sink =
      impl_->system.spawn(sink_actor, std::move(callback), num_completions, impl_->actor);
  std::optional<result<request_id>> out;
  {
    caf::scoped_actor self{impl_->system};
    self->request(impl_->actor, k_request_timeout, actors::submit_atom::value, std::move(request),
                  sink)
        .receive([&](request_id id) { out.emplace(id); },
                 [&](caf::error& err) { out.emplace(to_error(err)); });
  }
  if (!out->ok()) {
    // Nothing was sent to the sink (or, after a timeout, the engine cancels the request
    // when the sink goes down): the callback is never called.
    caf::anon_send_exit(sink, caf::exit_reason::kill);
    return std::move(*out);
  }
  caf::anon_send(sink, out->value());
  return std::move(*out);
}

void engine::cancel(request_id request) {
  caf::anon_send(impl_->actor, actors::cancel_atom::value, request);
}

engine_stats engine::stats() {
  engine_stats out;
  if (impl_->stopping.load()) return out;
  caf::scoped_actor self{impl_->system};
  self->request(impl_->actor, k_request_timeout, actors::stats_atom::value)
      .receive([&](engine_stats& s) { out = s; },
               [&](caf::error& err) {
                 std::fprintf(stderr, "pagedserve::engine: stats failed: %s\n",
                              impl_->system.render(err).c_str());
               });
  return out;
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
  impl_->stopping.store(true);
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
  impl_->report = report;
  return report;
}

}  // namespace pagedserve
