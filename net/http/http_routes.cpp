// http_session: dispatch of a parsed request to its handler, the small handlers, and the
// call_output side that completion_call writes through.

#include <algorithm>
#include <ctime>
#include <utility>

#include <spdlog/spdlog.h>
#include <boost/asio/post.hpp>
#include <boost/beast/websocket/rfc6455.hpp>
#include <boost/json.hpp>

#include "net/http/cors.h"
#include "net/http/engine_bridge.h"
#include "net/http/http_responses.h"
#include "net/http/http_session.h"
#include "net/http/request_rules.h"
#include "net/http/websocket_session.h"
#include "net/http/ws_subprotocol.h"
#include "net/openai/anthropic_error.h"
#include "net/openai/json_body.h"
#include "net/openai/request_fields.h"
#include "net/openai/tokenize_request.h"

namespace pagedserve::net {
namespace {

std::string_view to_std(beast::string_view s) { return {s.data(), s.size()}; }

api_error shutting_down() {
  return api_error{503, "the server is shutting down", "service_unavailable", {}, {}};
}

}  // namespace

void http_session::handle_request() {
  const auto& req = request_;
  keep_alive_ = req.keep_alive() && !ctx_.draining.load();
  anthropic_errors_ = false;
  if (answer_cors()) return;
  const route_outcome match = match_route(req.method(), to_std(req.target()));
  if (const auto* miss = std::get_if<route_error>(&match)) {
    answer_error(miss->error, miss->allow);
    return;
  }
  const route r = std::get<route>(match);
  anthropic_errors_ = anthropic_route(r);
  if (needs_api_key(r)) {
    const std::string header =
        request_authorization(to_std(req[http::field::authorization]), to_std(req["x-api-key"]));
    const std::string authorization =
        r == route::stream
            ? upgrade_authorization(header, to_std(req[http::field::sec_websocket_protocol]))
            : header;
    if (auto denied = check_api_key(ctx_.config.api_key, authorization)) {
      answer_error(*denied);
      return;
    }
  }
  handle_route(r);
}

// Sets the answer's CORS origin; answers a preflight itself (true) on any path.
bool http_session::answer_cors() {
  const cors_policy cors{ctx_.config.allowed_origins, ctx_.config.allowed_methods,
                         ctx_.config.allowed_headers};
  const std::string_view origin = to_std(request_[http::field::origin]);
  cors_origin_ = cors.allow_origin(origin).value_or("");
  const bool preflight =
      cors.enabled() && request_.method() == http::verb::options && !origin.empty() &&
      request_.find(http::field::access_control_request_method) != request_.end();
  if (!preflight) return false;
  const preflight_answer a =
      answer_preflight(cors, origin, to_std(request_[http::field::access_control_request_method]),
                       to_std(request_[http::field::access_control_request_headers]));
  if (a.status != 200) {
    answer(a.status, "text/plain", a.error);
    return true;
  }
  status_ = 200;
  ctx_.metrics.count_http_response(200);
  enqueue(make_preflight_response(keep_alive_, a.allow_origin, a.allow_methods, a.allow_headers),
          true);
  return true;
}

void http_session::handle_route(route r) {
  switch (r) {
    case route::health:
      handle_health();
      return;
    case route::models:
      handle_models();
      return;
    case route::model:
      handle_model();
      return;
    case route::version:
      handle_version();
      return;
    case route::tokenize:
    case route::detokenize:
      handle_tokenize(r);
      return;
    case route::metrics:
      handle_metrics();
      return;
    case route::completions:
    case route::chat_completions:
    case route::embeddings:
      handle_completion(r);
      return;
    case route::responses:
      handle_responses();
      return;
    case route::response_get:
    case route::response_delete:
      handle_stored_response(r);
      return;
    case route::messages:
    case route::count_tokens:
      handle_messages(r);
      return;
    case route::stream:
      upgrade_to_websocket();
      return;
    case route::playground:
    case route::ui_asset:
      handle_playground(r);
      return;
  }
}

// 200 {} for one engine or every replica up; with a router, 200 {"status":"degraded",...}
// while some replica is down and 503 while none is up (a load balancer then skips us).
void http_session::handle_health() {
  if (ctx_.draining.load()) {
    answer_error(shutting_down());
    return;
  }
  std::weak_ptr<http_session> weak = shared_from_this();
  const std::uint64_t serial = serial_;
  ctx_.eng.replicas_async([weak, serial](std::optional<std::vector<replica_info>> replicas) {
    if (auto self = weak.lock()) {
      boost::asio::post(self->get_executor(), [self, serial, replicas = std::move(replicas)] {
        self->on_replicas_for_health(serial, replicas);
      });
    }
  });
}

void http_session::on_replicas_for_health(std::uint64_t serial,
                                          const std::optional<std::vector<replica_info>>& polled) {
  guard(io_stage::engine_event, [&] {
    if (closed_ || !active_ || serial != serial_) return;
    if (!polled) {  // the router did not answer in time
      answer(503, "application/json",
             boost::json::serialize(boost::json::object{{"status", "unavailable"}}));
      return;
    }
    const std::vector<replica_info>& replicas = *polled;
    const auto up = static_cast<std::size_t>(std::count_if(
        replicas.begin(), replicas.end(), [](const replica_info& r) { return r.up; }));
    if (up == replicas.size()) {
      answer(200, "application/json", "{}");
      return;
    }
    const boost::json::object body{{"status", up == 0 ? "unavailable" : "degraded"},
                                   {"replicas_up", up},
                                   {"replicas", replicas.size()}};
    answer(up == 0 ? 503 : 200, "application/json", boost::json::serialize(body));
  });
}

boost::json::object http_session::model_card() const {
  return {{"id", ctx_.model.served_model_name},
          {"object", "model"},
          {"created", static_cast<std::int64_t>(ctx_.started_at)},
          {"owned_by", "pagedserve"},
          {"max_model_len", ctx_.eng.model().max_model_len}};
}

void http_session::handle_models() {
  boost::json::object list{{"object", "list"}, {"data", boost::json::array{model_card()}}};
  answer(200, "application/json", boost::json::serialize(list));
}

// OpenAI's retrieve: the served model's card, or 404 model_not_found.
void http_session::handle_model() {
  const std::string id = model_id_of(to_std(request_.target()));
  if (id != ctx_.model.served_model_name) {
    answer_error(model_not_found(id));
    return;
  }
  answer(200, "application/json", boost::json::serialize(model_card()));
}

void http_session::handle_version() {
  answer(200, "application/json",
         boost::json::serialize(boost::json::object{{"version", PAGEDSERVE_PROJECT_VERSION}}));
}

void http_session::handle_tokenize(route r) {
  guard(io_stage::body, [&] {
    auto json_body = parse_json_body(request_.body());
    if (const auto* invalid = std::get_if<api_error>(&json_body)) {
      answer_error(*invalid);
      return;
    }
    const boost::json::value& body = std::get<boost::json::value>(json_body);
    auto out = r == route::tokenize ? tokenize(body, ctx_.model) : detokenize(body, ctx_.model);
    if (const auto* err = std::get_if<api_error>(&out)) {
      answer_error(*err);
      return;
    }
    answer(200, "application/json", boost::json::serialize(std::get<boost::json::object>(out)));
  });
}

void http_session::handle_metrics() {
  std::weak_ptr<http_session> weak = shared_from_this();
  const std::uint64_t serial = serial_;
  engine_client& eng = ctx_.eng;
  // Stats, then the replicas (none for one engine); the page is rendered on the io thread.
  eng.stats_async([weak, serial, &eng](engine_stats stats) {
    eng.replicas_async(
        [weak, serial, stats = std::move(stats)](std::optional<std::vector<replica_info>> polled) {
          if (auto self = weak.lock()) {
            // No answer from the router: the sums alone.
            boost::asio::post(
                self->get_executor(),
                [self, serial, stats, replicas = polled.value_or(std::vector<replica_info>{})] {
                  self->on_stats(serial, stats, replicas);
                });
          }
        });
  });
}

void http_session::on_stats(std::uint64_t serial, const engine_stats& stats,
                            const std::vector<replica_info>& replicas) {
  guard(io_stage::engine_event, [&] {
    if (closed_ || !active_ || serial != serial_) return;
    answer(200, "text/plain; version=0.0.4",
           ctx_.metrics.render(stats, ctx_.model.served_model_name, replicas));
  });
}

bool http_session::refused_while_draining() {
  if (!ctx_.draining.load()) return false;
  answer_error(shutting_down());
  return true;
}

void http_session::handle_completion(route r) {
  if (refused_while_draining()) return;
  guard(io_stage::body, [&] {
    const std::optional<boost::json::value> body = json_body_or_answer();
    if (!body) return;
    parse_outcome parsed = r == route::completions  ? parse_completion_request(*body, ctx_.model)
                           : r == route::embeddings ? parse_embedding_request(*body, ctx_.model)
                                                    : parse_chat_request(*body, ctx_.model);
    if (auto* err = std::get_if<api_error>(&parsed)) {
      answer_error(*err);
      return;
    }
    start_call(std::move(std::get<api_request>(parsed)), nullptr);
  });
}

std::optional<boost::json::value> http_session::json_body_or_answer() {
  auto json_body = parse_json_body(request_.body());
  if (const auto* invalid = std::get_if<api_error>(&json_body)) {
    answer_error(*invalid);
    return std::nullopt;
  }
  return std::get<boost::json::value>(std::move(json_body));
}

void http_session::start_call(api_request request, std::unique_ptr<chat_dialect> dialect) {
  std::string().swap(request_.body());  // the request value holds what is needed now
  call_output& out = *this;
  call_ = std::make_unique<completion_call>(out, ctx_, std::move(request), arrival_,
                                            std::move(dialect));
  call_->start();
}

void http_session::upgrade_to_websocket() {
  if (!beast::websocket::is_upgrade(request_)) {
    answer_error(
        api_error{426, "/v1/stream expects a WebSocket upgrade", "invalid_request_error", {}, {}});
    return;
  }
  if (auto invalid = check_websocket_key(request_)) {
    keep_alive_ = false;  // the client expected the connection to change protocol
    answer_error(*invalid);
    return;
  }
  if (buffer_.size() > 0) {
    // RFC 6455 §4.1: a client waits for the handshake's answer before it sends frames. Bytes
    // already read here could not reach the WebSocket stream: refuse rather than drop them.
    keep_alive_ = false;
    answer_error(bad_request("data sent after the WebSocket upgrade request before its answer"));
    return;
  }
  if (ctx_.draining.load()) {
    answer_error(shutting_down());
    return;
  }
  // This session hands its socket and connection slot over and ends here.
  closed_ = true;
  active_ = false;
  ctx_.metrics.count_http_response(101);
  spdlog::debug("{} -> 101 (WebSocket)", request_line_);
  auto ws = std::make_shared<websocket_session>(stream_.release_socket(), ctx_, std::move(slot_));
  ws->run(std::move(request_));
}

void http_session::answer(unsigned status, std::string_view content_type, std::string body) {
  status_ = status;
  ctx_.metrics.count_http_response(status);
  enqueue(make_response(response_head{status, keep_alive_, {}, head_only_, cors_origin_},
                        content_type, std::move(body)),
          true);
}

void http_session::answer_error(const api_error& err, std::string_view allow) {
  status_ = err.status;
  if (err.status >= 500) {
    spdlog::warn("{} -> {}: {}", request_line_, err.status, err.message);
  } else {
    spdlog::debug("{} -> {}: {}", request_line_, err.status, err.message);
  }
  ctx_.metrics.count_http_response(err.status);
  const response_head head{err.status, keep_alive_, allow, head_only_, cors_origin_};
  enqueue(anthropic_errors_ ? make_response(head, "application/json", to_anthropic_body(err))
                            : make_error_response(head, err),
          true);
}

void http_session::respond_json(unsigned status, std::string body) {
  answer(status, "application/json", std::move(body));
}

void http_session::respond_error(const api_error& err) { answer_error(err); }

void http_session::begin_event_stream() {
  status_ = 200;
  ctx_.metrics.count_http_response(200);
  enqueue(make_event_stream_head(keep_alive_, cors_origin_), false);
}

void http_session::send_event(const sse_event& event) {
  enqueue(make_event_chunk(event.data, event.name), false);
}

void http_session::end_event_stream(bool done_marker) {
  enqueue((done_marker ? make_event_chunk("[DONE]") : std::string()) + std::string(last_chunk()),
          true);
}

submission http_session::submit(std::size_t prompt, generation_request request) {
  return submit_to_session(ctx_.eng, std::move(request), shared_from_this(), serial_, prompt);
}

void http_session::on_accepted(std::uint64_t call, std::size_t prompt,
                               const result<request_id>& id) {
  guard(io_stage::engine_event, [&] {
    if (call_ && call == serial_) call_->on_accepted(prompt, id);
  });
}

void http_session::on_engine_event(std::uint64_t call, std::size_t prompt,
                                   const engine_event& event, std::uint64_t estimate) {
  queued_bytes_.fetch_sub(estimate);
  guard(io_stage::engine_event, [&] {
    if (call_ && call == serial_) call_->on_event(prompt, event);
  });
}

}  // namespace pagedserve::net
