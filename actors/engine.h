#pragma once
// engine: the embeddable engine for C++ programs that do not use CAF. No CAF type appears
// here; inside, it runs its own actor system with the engine actor (actors/engine_actor.h).
//
//   auto e = engine::start(config);                 // loads the model; error if it cannot
//   auto id = (*e)->submit(request, [](const engine_event& ev) { ... });
//   (*e)->cancel(*id);
//   (*e)->shutdown(std::chrono::seconds(5));        // drains, then cancels what is left
//
// Callbacks run on the engine's threads, one request's events in order (chunks, then
// exactly one final per completion); they must not call shutdown().
//
// Servers use the non-blocking forms: submit_async (acceptance arrives as a callback; the
// returned handle cancels at any time, even before the id is known) and stats_async.
//
// A slow consumer never slows the engine down, provided callbacks only hand their event
// to someone else (post it to an io thread or a queue) and return: the scheduler sends
// events to each request's own small sink actor without waiting (unbounded mailbox), and
// that actor calls the callback. Callbacks must not block: they run on the engine's worker
// threads (4), which the scheduler actor shares, so blocking ones would delay the steps.
// A callback that throws cancels its request (the exception is swallowed).

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "api/engine_client.h"
#include "api/engine_config.h"
#include "api/engine_events.h"
#include "api/engine_model_info.h"
#include "api/engine_stats.h"
#include "api/generation_request.h"
#include "api/replica_plan.h"
#include "api/shutdown_report.h"
#include "common/result.h"

namespace pagedserve {

class engine final : public engine_client {
 public:
  [[nodiscard]] static result<std::unique_ptr<engine>> start(engine_config config);
  // Several replicas of `config` behind a router (replica_plan.h); one engine when
  // plan.replicas is empty. stats() then sums the replicas; replicas() tells each one's.
  [[nodiscard]] static result<std::unique_ptr<engine>> start(engine_config config,
                                                             replica_plan plan);
  ~engine() override;  // shutdown() with a 10 s timeout if not done yet
  engine(const engine&) = delete;
  engine& operator=(const engine&) = delete;

  // The id, or an error (invalid request, queue full, can never fit, shutting down). On
  // error the callback is never called.
  [[nodiscard]] result<request_id> submit(generation_request request, engine_callback callback);
  void cancel(request_id request);
  [[nodiscard]] engine_stats stats();

  // Never blocks (safe from an io thread). `accepted` runs exactly once, on an engine
  // thread, before any event of the request: with the id, or with the error (then
  // `callback` is never called). The handle cancels the request at any time.
  submission submit_async(generation_request request, engine_callback callback,
                          accept_callback accepted) override;
  // Never blocks; `done` runs on an engine thread (a default engine_stats if the engine is
  // shutting down or does not answer within a few seconds).
  void stats_async(stats_callback done) override;
  [[nodiscard]] const engine_model_info& model() const override;
  void replicas_async(replicas_callback done) override;
  shutdown_report shutdown(std::chrono::milliseconds timeout);

 private:
  struct impl;
  explicit engine(std::unique_ptr<impl> p);
  std::unique_ptr<impl> impl_;
};

}  // namespace pagedserve
