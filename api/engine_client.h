#pragma once
// engine_client: the non-blocking verbs a server needs from an engine (submit with callbacks,
// stats, the model's description). `engine` (actors/engine.h, the facade) implements it; so can any
// front that stands for an engine (a router over replicas) and the fakes of the server's
// tests and fuzzers. No CAF type here.
//
// Callbacks run on the implementation's threads, one request's events in order (chunks,
// then exactly one final per completion; lifecycle events among them only for a request
// that set report_lifecycle); they must not block. A consumer that does not care about
// lifecycle events ignores that alternative.

#include <functional>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "api/engine_events.h"
#include "api/engine_model_info.h"
#include "api/engine_stats.h"
#include "api/generation_request.h"
#include "api/replica_info.h"
#include "common/result.h"

namespace pagedserve {

using engine_callback = std::function<void(const engine_event&)>;
// Called once per submit_async, before any event of that request: the id, or why the
// request was refused (then the event callback is never called).
using accept_callback = std::function<void(result<request_id>)>;
using stats_callback = std::function<void(engine_stats)>;

// Every replica in configuration order; empty for a single engine (no router); nullopt when
// the router did not answer (a wedged front: /health says 503).
using replicas_callback = std::function<void(std::optional<std::vector<replica_info>>)>;

// What a submission handle cancels: each engine implementation keeps one per request.
class cancellable {
 public:
  virtual ~cancellable() = default;
  // Before acceptance: cancelled as soon as it is accepted; after it: the request ends with
  // a `cancelled` final (unless another final came first). Idempotent; any thread.
  virtual void cancel() = 0;
};

// A submitted request, for cancelling it. Copyable; cheap; safe from any thread. A default
// one cancels nothing.
class submission {
 public:
  submission() = default;
  explicit submission(std::shared_ptr<cancellable> target) : target_(std::move(target)) {}
  void cancel() const {
    if (target_) target_->cancel();
  }

 private:
  std::shared_ptr<cancellable> target_;
};

class engine_client {
 public:
  virtual ~engine_client() = default;

  // Never blocks. `accepted` runs exactly once, before any event of the request: with the
  // id, or with the error (then `callback` is never called).
  virtual submission submit_async(generation_request request, engine_callback callback,
                                  accept_callback accepted) = 0;
  // Never blocks; `done` gets default stats when the engine cannot answer in time.
  virtual void stats_async(stats_callback done) = 0;
  [[nodiscard]] virtual const engine_model_info& model() const = 0;
  // Never blocks; `done` gets the replicas (replicas_callback).
  virtual void replicas_async(replicas_callback done) { done(std::vector<replica_info>{}); }
};

}  // namespace pagedserve
