#include "net/http/server.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <ctime>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include <spdlog/spdlog.h>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/strand.hpp>

#include "actors/engine.h"
#include "net/config/server_metrics.h"
#include "net/http/listener.h"
#include "net/http/server_context.h"
#include "net/openai/served_chat_template.h"
#include "runtime/chat/chat_template.h"

namespace pagedserve::net {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

// After the engine drained: how long responses may take to leave, and io threads to end.
constexpr auto flush_time = std::chrono::seconds(2);

result<tcp::acceptor> open_acceptor(asio::io_context& ioc, const std::string& host,
                                    std::uint16_t port) {
  const std::string where = host + ":" + std::to_string(port);
  boost::system::error_code ec;
  tcp::endpoint endpoint;
  const asio::ip::address address = asio::ip::make_address(host, ec);
  if (!ec) {
    endpoint = tcp::endpoint(address, port);
  } else {
    tcp::resolver resolver(ioc);
    auto found = resolver.resolve(host, std::to_string(port), ec);
    if (ec || found.empty()) {
      return make_error(error_code::invalid_argument,
                        "cannot resolve host '" + host + "': " + ec.message());
    }
    endpoint = found.begin()->endpoint();
  }
  tcp::acceptor acceptor(asio::make_strand(ioc));
  if (acceptor.open(endpoint.protocol(), ec) ||
      acceptor.set_option(asio::socket_base::reuse_address(true), ec) ||
      acceptor.bind(endpoint, ec) ||
      acceptor.listen(asio::socket_base::max_listen_connections, ec)) {
    return make_error(error_code::io_error, "cannot listen on " + where + ": " + ec.message());
  }
  return acceptor;
}

}  // namespace

// Member order is destruction order reversed: the io_context (and with it every session and
// pending handler) dies before the context, the chat template and the engine they refer to.
// The engine is shut down explicitly before that, so no callback runs any more.
struct server::impl {
  server_config config;
  server_metrics metrics;
  std::unique_ptr<engine> eng;
  served_model served;  // the chat template and what the parsers know of the model
  std::unique_ptr<server_context> ctx;
  asio::io_context ioc;
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work;
  std::shared_ptr<listener> accept;
  std::optional<asio::signal_set> signals;
  std::vector<std::thread> threads;
  std::uint16_t port = 0;

  std::mutex mutex;
  std::condition_variable changed;
  bool stop_requested = false;
  bool shut_down = false;
  std::uint32_t num_running = 0;  // io threads still inside run()

  explicit impl(server_config c)
      : config(std::move(c)), ioc(static_cast<int>(std::max(1u, config.num_io_threads))) {}

  void start_threads();
  void run_io();
  std::uint64_t shutdown();
  void join_threads();
};

void server::impl::start_threads() {
  work.emplace(ioc.get_executor());
  const std::uint32_t n = std::max(1u, config.num_io_threads);
  num_running = n;
  for (std::uint32_t i = 0; i < n; ++i) {
    threads.emplace_back([this] {
      run_io();
      std::lock_guard lock(mutex);
      --num_running;
      changed.notify_all();
    });
  }
}

// Sessions guard their own handlers (io_guard.h); this is the net under them. An exception
// that escapes a handler leaves run() (the handler's operation is gone, its owner with it),
// and run() is entered again: the other connections and the server go on.
void server::impl::run_io() {
  for (;;) {
    try {
      ioc.run();
      return;
    } catch (const std::exception& e) {
      spdlog::error("an exception escaped an io handler: {}", e.what());
    } catch (...) {
      spdlog::error("an exception escaped an io handler (not a std::exception)");
    }
  }
}

std::uint64_t server::impl::shutdown() {
  spdlog::info("shutting down: draining for up to {} s", config.shutdown_timeout_s);
  ctx->draining.store(true);
  accept->stop();
  asio::post(ioc, [this] {
    if (signals) signals->cancel();
  });
  const auto timeout = std::chrono::milliseconds(
      static_cast<std::int64_t>(std::max(0.0, config.shutdown_timeout_s) * 1000.0));
  const shutdown_report report = eng->shutdown(timeout);
  if (!ctx->calls.wait_zero(std::chrono::steady_clock::now() + flush_time)) {
    spdlog::warn("shutdown: some responses were not fully sent");
  }
  ctx->sessions.close_all();
  join_threads();
  spdlog::info("shut down: {} drained, {} cancelled", report.num_drained, report.num_cancelled);
  return report.num_cancelled;
}

void server::impl::join_threads() {
  work.reset();
  {
    std::unique_lock lock(mutex);
    if (!changed.wait_for(lock, flush_time, [&] { return num_running == 0; })) {
      spdlog::warn("shutdown: stopping io threads with connections still open");
      ioc.stop();
    }
  }
  for (std::thread& t : threads) t.join();
  threads.clear();
}

result<std::unique_ptr<server>> server::start(server_config config, io_hooks hooks) {
  if (status valid = validate(config); !valid) return valid.err();
  auto key_template = load_chat_template_key(config.chat_template);  // before the model loads
  if (!key_template) return key_template.err();
  auto p = std::make_unique<impl>(std::move(config));
  replica_plan plan;
  plan.replicas = p->config.replicas;
  plan.routing.policy = routing::parse_routing_policy(p->config.routing)
                            .value_or(routing::routing_policy::least_load);
  plan.secret = p->config.engine_secret;
  auto eng = engine::start(p->config.engine, std::move(plan));
  if (!eng) return eng.err();
  p->eng = std::move(eng.value());
  const engine_model_info& info = p->eng->model();
  p->metrics.set_model_info(info.quantization, info.kv_cache_dtype);
  p->served = make_served_model(p->config, info, std::move(key_template.value()));
  p->ctx.reset(new server_context{
      p->config,
      *p->eng,
      p->metrics,
      static_cast<std::int64_t>(std::time(nullptr)),
      p->served.context,
      session_registry(p->config.max_connections),
      call_counter{},
      {},
      std::move(hooks),
      response_store(p->config.responses_store_max_count, p->config.responses_store_max_bytes)});

  auto acceptor = open_acceptor(p->ioc, p->config.host, p->config.port);
  if (!acceptor) return acceptor.err();
  p->port = acceptor->local_endpoint().port();
  p->accept = std::make_shared<listener>(p->ioc, std::move(acceptor.value()), *p->ctx);
  p->accept->run();
  if (p->config.handle_signals) {
    p->signals.emplace(p->ioc, SIGINT, SIGTERM);
    p->signals->async_wait([raw = p.get()](const boost::system::error_code& ec, int signal) {
      if (ec) return;
      spdlog::info("signal {} received", signal);
      std::lock_guard lock(raw->mutex);
      raw->stop_requested = true;
      raw->changed.notify_all();
    });
  }
  p->start_threads();
  return std::unique_ptr<server>(new server(std::move(p)));
}

server::server(std::unique_ptr<impl> p) : impl_(std::move(p)) {}

server::~server() {
  if (!impl_) return;
  request_stop();
  bool run_shutdown = false;
  {
    std::lock_guard lock(impl_->mutex);
    run_shutdown = !std::exchange(impl_->shut_down, true);
  }
  if (run_shutdown) impl_->shutdown();
}

std::uint16_t server::port() const { return impl_->port; }

std::uint64_t server::wait() {
  {
    std::unique_lock lock(impl_->mutex);
    impl_->changed.wait(lock, [&] { return impl_->stop_requested; });
    if (std::exchange(impl_->shut_down, true)) return 0;
  }
  return impl_->shutdown();
}

void server::request_stop() {
  std::lock_guard lock(impl_->mutex);
  impl_->stop_requested = true;
  impl_->changed.notify_all();
}

}  // namespace pagedserve::net
