#include "net/http/completion_call.h"

#include <ctime>
#include <utility>

#include <spdlog/spdlog.h>

#include "net/openai/embedding_builder.h"

namespace pagedserve::net {
namespace {

std::unique_ptr<event_builder> make_builder(const api_request& request, const tokenizer* tok) {
  if (request.kind == api_kind::embedding) return std::make_unique<embedding_builder>(request);
  return std::make_unique<response_builder>(request, tok, make_response_id(request.kind),
                                            static_cast<std::int64_t>(std::time(nullptr)));
}

double seconds_between(steady_clock::time_point from, steady_clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

}  // namespace

completion_call::completion_call(call_output& out, server_context& ctx, api_request request,
                                 steady_clock::time_point arrival,
                                 std::unique_ptr<chat_dialect> dialect)
    : out_(out),
      ctx_(ctx),
      request_(std::move(request)),
      builder_(make_builder(request_, ctx.model.tok)),
      dialect_(std::move(dialect)),
      registration_(ctx.calls),
      arrival_(arrival),
      last_token_(request_.prompts.size() * request_.n) {}

// A call that goes away unfinished (its client left) cancels what it submitted; the engine
// counts those completions as cancelled (request_success_total{finished_reason="abort"}).
completion_call::~completion_call() { cancel_all(); }

void completion_call::start() {
  submissions_.reserve(request_.prompts.size());
  for (std::size_t i = 0; i < request_.prompts.size(); ++i) {
    submissions_.push_back(out_.submit(i, request_.prompts[i].request));
  }
}

void completion_call::on_accepted(std::size_t prompt, const result<request_id>& id) {
  if (finished_ || refused_) return;
  if (!id.ok()) {
    spdlog::debug("prompt {} refused by the engine: {}", prompt, id.err().message);
    refuse(id.err());
    return;
  }
  ++num_accepted_;
  if (num_accepted_ == request_.prompts.size() && request_.stream && !abandoned_) ensure_head();
}

void completion_call::on_event(std::size_t prompt, const engine_event& event) {
  if (finished_ || refused_ || prompt >= request_.prompts.size()) return;
  if (const auto* chunk = std::get_if<token_chunk>(&event)) {
    on_chunk(prompt, *chunk);
  } else if (const auto* final = std::get_if<request_final>(&event)) {
    on_final(prompt, *final);
  }  // lifecycle events: HTTP requests never ask for them
}

void completion_call::on_chunk(std::size_t prompt, const token_chunk& chunk) {
  if (!chunk.token_ids.empty()) {
    const auto now = steady_clock::now();
    const std::size_t choice = prompt * request_.n + chunk.index;
    if (!first_token_seen_) {
      first_token_seen_ = true;
      ctx_.metrics.observe_time_to_first_token(seconds_between(arrival_, now));
    }
    if (choice < last_token_.size()) {
      if (last_token_[choice]) {
        ctx_.metrics.observe_inter_token_latency(seconds_between(*last_token_[choice], now));
      }
      last_token_[choice] = now;
    }
  }
  std::vector<std::string> payloads;
  builder_->on_chunk(prompt, chunk, payloads);
  emit(payloads);
}

void completion_call::on_final(std::size_t prompt, const request_final& final) {
  if (final.queue_time_s > 0.0) ctx_.metrics.observe_queue_time(final.queue_time_s);
  std::vector<std::string> payloads;
  builder_->on_final(prompt, final, payloads);
  emit(payloads);
  if (builder_->done()) complete();
}

void completion_call::emit(std::vector<std::string>& payloads) {
  if (!request_.stream || abandoned_) return;
  for (std::string& payload : payloads) {
    if (!dialect_) {
      send(sse_event{{}, std::move(payload)});
      continue;
    }
    std::vector<sse_event> events;
    dialect_->on_chunk(boost::json::parse(payload).as_object(), events);
    for (sse_event& e : events) send(std::move(e));
  }
}

void completion_call::send(sse_event event) {
  if (head_sent_) {
    out_.send_event(event);
  } else {
    pending_.push_back(std::move(event));
  }
}

void completion_call::send_error(const api_error& err) {
  send(dialect_ ? dialect_->error_event(err) : sse_event{{}, to_body(err)});
}

void completion_call::end_stream() { out_.end_event_stream(/*done_marker=*/!dialect_); }

void completion_call::ensure_head() {
  if (head_sent_) return;
  head_sent_ = true;
  out_.begin_event_stream();
  for (const sse_event& event : pending_) out_.send_event(event);
  pending_.clear();
}

void completion_call::complete() {
  finished_ = true;
  ctx_.metrics.observe_e2e_latency(seconds_between(arrival_, steady_clock::now()));
  if (abandoned_) return;
  const std::optional<std::string>& engine_error = builder_->error_message();
  if (request_.stream) {
    ensure_head();
    if (engine_error) {
      send_error(internal_error(*engine_error));
    } else {
      std::vector<std::string> closing = builder_->finish();
      emit(closing);
      if (dialect_) {
        std::vector<sse_event> events;
        dialect_->close(events);
        for (sse_event& e : events) send(std::move(e));
      }
    }
    end_stream();
    return;
  }
  if (engine_error) {
    out_.respond_error(internal_error(*engine_error));
    return;
  }
  std::vector<std::string> body = builder_->finish();
  if (body.empty()) {
    out_.respond_json(200, "{}");
  } else if (dialect_) {
    out_.respond_json(200, dialect_->body(boost::json::parse(body.front()).as_object()));
  } else {
    out_.respond_json(200, std::move(body.front()));
  }
}

void completion_call::refuse(const error& err) {
  refused_ = true;
  finished_ = true;
  cancel_all();
  if (abandoned_) return;
  const api_error answer = to_api_error(err);
  if (!head_sent_) {
    out_.respond_error(answer);
    return;
  }
  send_error(answer);
  end_stream();
}

void completion_call::abandon() {
  abandoned_ = true;
  cancel_all();
}

void completion_call::cancel_all() {
  for (const submission& s : submissions_) s.cancel();
}

}  // namespace pagedserve::net
