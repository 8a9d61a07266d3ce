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
// exactly one final); they must not block for long and must not call shutdown().

#include <chrono>
#include <functional>
#include <memory>
#include <variant>

#include "runtime/core/result.h"
#include "runtime/engine/engine_config.h"
#include "runtime/engine/generation_request.h"

namespace pagedserve {

using engine_event = std::variant<token_chunk, request_final>;
using engine_callback = std::function<void(const engine_event&)>;

struct shutdown_report {
  std::uint64_t num_drained = 0;        // finished normally during the drain
  std::uint64_t num_cancelled = 0;      // cancelled when the timeout passed
  std::uint64_t num_leaked_blocks = 0;  // blocks not back in the pool afterwards: must be 0
  bool timed_out = false;
};

class engine {
 public:
  [[nodiscard]] static result<std::unique_ptr<engine>> start(engine_config config);
  ~engine();  // shutdown() with a 10 s timeout if not done yet
  engine(const engine&) = delete;
  engine& operator=(const engine&) = delete;

  // The id, or an error (invalid request, queue full, can never fit, shutting down). On
  // error the callback is never called.
  [[nodiscard]] result<request_id> submit(generation_request request, engine_callback callback);
  void cancel(request_id request);
  [[nodiscard]] engine_stats stats();
  shutdown_report shutdown(std::chrono::milliseconds timeout);

 private:
  struct impl;
  explicit engine(std::unique_ptr<impl> p);
  std::unique_ptr<impl> impl_;
};

}  // namespace pagedserve
