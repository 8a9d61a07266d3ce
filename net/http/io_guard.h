#pragma once
// io_guard: no exception escapes a connection's work on the io threads. Each handler runs
// as a stage through guarded(): a throw stops there, is logged with its stage, and the
// session's recovery answers for that connection alone (a 500 when nothing of the answer
// has gone out yet, else a close); the io thread and every other connection go on.
// Stages nest (a read completes and parses, the parse dispatches a route), so the log
// names the innermost one. A recovery that throws too is logged and dropped: the session
// then has no pending work, so its last owner lets go and its socket closes.
//
// io_hooks is the test seam: on_stage runs as each stage starts and may throw.

#include <exception>
#include <functional>
#include <string_view>
#include <utility>

namespace pagedserve::net {

enum class io_stage {
  accept,        // listener: a new connection
  read,          // bytes (or an error) arrived on a socket
  parse,         // request bytes fed to the HTTP parser
  route,         // a parsed request dispatched to its handler
  body,          // a completion body parsed and submitted
  engine_event,  // an engine acceptance, token chunk, final or stats reached its session
  write,         // a write to a socket finished
  websocket,     // the WebSocket session: handshake, message, write
};

[[nodiscard]] std::string_view to_string(io_stage stage);

struct io_hooks {
  std::function<void(io_stage)> on_stage;  // empty in production
};

// Logs the exception of `stage` (error level: it is a bug or an allocation failure).
void log_stage_exception(io_stage stage, const std::exception_ptr& thrown) noexcept;

template <class Work, class Recover>
void guarded(const io_hooks& hooks, io_stage stage, Work&& work, Recover&& recover) noexcept {
  try {
    if (hooks.on_stage) hooks.on_stage(stage);
    std::forward<Work>(work)();
  } catch (...) {
    log_stage_exception(stage, std::current_exception());
    try {
      std::forward<Recover>(recover)();
    } catch (...) {
      log_stage_exception(stage, std::current_exception());
    }
  }
}

}  // namespace pagedserve::net
