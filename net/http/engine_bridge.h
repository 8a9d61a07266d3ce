#pragma once
// engine_bridge: submits a request whose acceptance and events go to a session's strand.
// The callbacks run on engine threads: they never block and never touch the socket. They
// hold a weak_ptr to the session (a closed session drops the event), add an estimate of the
// event's bytes to the session's send-queue count (so a flood counts before the strand runs)
// and post; the strand handler takes the estimate back off and queues the real bytes.
// Session must provide: get_executor(), queued_bytes() (std::atomic<std::uint64_t>&),
// on_accepted(call, prompt, result<request_id>) and on_engine_event(call, prompt, event,
// estimate).

#include <atomic>
#include <cstdint>
#include <memory>
#include <utility>
#include <variant>

#include <boost/asio/post.hpp>

#include "api/engine_client.h"

namespace pagedserve::net {

// Roughly the bytes an event becomes on the wire (JSON overhead included).
[[nodiscard]] inline std::uint64_t estimate_bytes(const engine_event& event) {
  if (const auto* chunk = std::get_if<token_chunk>(&event)) {
    return 128 + 2 * chunk->text.size() + 8 * chunk->token_ids.size() +
           64 * chunk->logprobs.size() +
           (chunk->logprobs.empty()
                ? 0
                : 48 * chunk->logprobs.front().top.size() * chunk->logprobs.size());
  }
  if (const auto* final = std::get_if<request_final>(&event)) {
    return 256 + 2 * final->text.size();
  }
  return 192;  // request_lifecycle: a few numbers
}

template <class Session>
submission submit_to_session(engine_client& eng, generation_request request,
                             const std::shared_ptr<Session>& session, std::uint64_t call,
                             std::size_t prompt) {
  std::weak_ptr<Session> weak = session;
  auto on_event = [weak, call, prompt](const engine_event& event) {
    auto self = weak.lock();
    if (!self) return;
    const std::uint64_t estimate = estimate_bytes(event);
    self->queued_bytes().fetch_add(estimate);
    boost::asio::post(self->get_executor(), [self, call, prompt, event, estimate] {
      self->on_engine_event(call, prompt, event, estimate);
    });
  };
  auto on_accepted = [weak, call, prompt](result<request_id> id) {
    auto self = weak.lock();
    if (!self) return;
    boost::asio::post(self->get_executor(), [self, call, prompt, id = std::move(id)] {
      self->on_accepted(call, prompt, id);
    });
  };
  return eng.submit_async(std::move(request), std::move(on_event), std::move(on_accepted));
}

}  // namespace pagedserve::net
