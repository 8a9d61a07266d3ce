#pragma once
// server_context: what every session shares. Owned by the server and declared before its
// io_context, so it outlives every session (sessions die with the io_context's handlers).
// Everything here is safe to use from any io thread.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "api/engine_client.h"
#include "net/config/server_config.h"
#include "net/config/server_metrics.h"
#include "net/http/io_guard.h"
#include "net/openai/api_request.h"
#include "net/openai/response_store.h"

namespace pagedserve::net {

// A session the server can close at shutdown. close_for_shutdown() may be called from any
// thread: it only posts onto the session's strand.
class closable_session {
 public:
  virtual ~closable_session() = default;
  virtual void close_for_shutdown() = 0;
};

// The open connections: a count for max_connections and weak references for shutdown.
class session_registry {
 public:
  explicit session_registry(std::uint32_t max_connections) : max_(max_connections) {}

  // A slot for a new connection, or false when max_connections are open.
  [[nodiscard]] bool try_reserve();
  void release();  // the connection's slot (connection_slot does this)
  void add(const std::shared_ptr<closable_session>& session);
  void remove(const closable_session* session);
  void close_all();
  [[nodiscard]] std::uint32_t num_open() const { return num_open_.load(); }

 private:
  const std::uint32_t max_;
  std::atomic<std::uint32_t> num_open_{0};
  std::mutex mutex_;
  std::unordered_map<const closable_session*, std::weak_ptr<closable_session>> sessions_;
};

// Holds one reserved connection slot; moves from the HTTP session to its WebSocket session.
class connection_slot {
 public:
  connection_slot() = default;
  explicit connection_slot(session_registry* registry) : registry_(registry) {}
  connection_slot(connection_slot&& other) noexcept : registry_(other.registry_) {
    other.registry_ = nullptr;
  }
  connection_slot& operator=(connection_slot&& other) noexcept;
  connection_slot(const connection_slot&) = delete;
  connection_slot& operator=(const connection_slot&) = delete;
  ~connection_slot();

 private:
  session_registry* registry_ = nullptr;
};

// API requests between arrival and their last byte queued (or abandonment): shutdown waits
// for this to reach zero before it closes connections.
class call_counter {
 public:
  void add();
  void remove();
  // True if the count reached zero before the deadline.
  bool wait_zero(std::chrono::steady_clock::time_point deadline);

 private:
  std::mutex mutex_;
  std::condition_variable zero_;
  std::uint64_t num_ = 0;
};

// What the parsers need of the served model: its limits and tokenizer from `info`, the name
// it answers to (`served_model_name`, or the model's own when empty) and the chat template
// (null: chat is refused).
// `reasoning_parser` is the server key's value (checked by validate).
[[nodiscard]] model_context make_model_context(const engine_model_info& info,
                                               const std::string& served_model_name,
                                               const chat_template* chat,
                                               const std::string& reasoning_parser = {},
                                               const std::string& tool_call_parser = {},
                                               bool enable_auto_tool_choice = false);

// The API parsers' view of the served model: the chat template (the server's chat_template
// key's, else the tokenizer's; null when neither: chat is refused, with a warning logged)
// and the model_context over it with every server key that shapes requests. The context
// points into `chat`, which a unique_ptr keeps in place.
struct served_model {
  std::unique_ptr<chat_template> chat;
  model_context context;
};
[[nodiscard]] served_model make_served_model(const server_config& config,
                                             const engine_model_info& info,
                                             std::optional<chat_template> key_template);

struct server_context {
  const server_config& config;
  engine_client& eng;
  server_metrics& metrics;
  std::int64_t started_at = 0;  // unix seconds: /v1/models "created"
  model_context model;          // served name, limits, tokenizer and chat template for the parsers
  session_registry sessions;
  call_counter calls;
  // Set when shutdown begins: new API requests get 503 and /health answers 503.
  std::atomic<bool> draining{false};
  io_hooks hooks;            // tests: runs as each stage of a connection's work starts
  response_store responses;  // the Responses API's stored responses
};

// RAII registration of one call in server_context::calls.
class call_registration {
 public:
  explicit call_registration(call_counter& counter) : counter_(&counter) { counter_->add(); }
  call_registration(const call_registration&) = delete;
  call_registration& operator=(const call_registration&) = delete;
  ~call_registration() { counter_->remove(); }

 private:
  call_counter* counter_;
};

}  // namespace pagedserve::net
