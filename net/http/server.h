#pragma once
// server: `pagedserve serve`. Starts the engine (actors/engine.h; the sessions reach it only
// through its engine_client interface), listens on host:port with Boost.Beast, serves the
// OpenAI-compatible routes, SSE, /metrics, /health and the WebSocket protocol at /v1/stream
// (docs/websocket.md).
// No Beast or CAF type appears in this header.
//
//   auto s = server::start(config);   // loads the model, binds; error if either fails
//   s.value()->wait();                // until request_stop() or SIGINT/SIGTERM
//                                     // then: stop accepting, drain (shutdown_timeout_s),
//                                     // cancel the rest, close connections; returns

#include <cstdint>
#include <memory>

#include "common/result.h"
#include "net/config/server_config.h"
#include "net/http/io_guard.h"

namespace pagedserve::net {

class server {
 public:
  // `hooks` is the tests' seam into every connection's stages (io_guard.h).
  [[nodiscard]] static result<std::unique_ptr<server>> start(server_config config,
                                                             io_hooks hooks = {});
  ~server();  // request_stop() + the graceful shutdown if wait() was not called
  server(const server&) = delete;
  server& operator=(const server&) = delete;

  [[nodiscard]] std::uint16_t port() const;  // the bound port (useful with port 0)
  // Blocks until a stop is requested, then shuts down gracefully. Returns the number of
  // requests cancelled at the shutdown deadline (0 when everything drained).
  std::uint64_t wait();
  void request_stop();  // any thread (not a signal handler: signals go through asio)

 private:
  struct impl;
  explicit server(std::unique_ptr<impl> p);
  std::unique_ptr<impl> impl_;
};

}  // namespace pagedserve::net
