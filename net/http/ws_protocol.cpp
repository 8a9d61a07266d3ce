#include "net/http/ws_protocol.h"

#include <utility>

#include "net/openai/json_body.h"
#include "net/openai/response_builder.h"

namespace pagedserve::net {
namespace {

namespace json = boost::json;

double seconds_between(std::chrono::steady_clock::time_point from,
                       std::chrono::steady_clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

json::array logprobs_json(const std::vector<chunk_logprob>& logprobs) {
  json::array out;
  for (const chunk_logprob& lp : logprobs) {
    json::array top;
    for (const token_logprob& alt : lp.top) {
      top.push_back(json::object{{"token_id", alt.token}, {"logprob", alt.logprob}});
    }
    out.push_back(
        json::object{{"token_id", lp.token}, {"logprob", lp.logprob}, {"top", std::move(top)}});
  }
  return out;
}

}  // namespace

ws_client_message parse_ws_message(std::string_view text) {
  auto parsed = parse_json_body(text);
  json::value* value_ptr = std::get_if<json::value>(&parsed);
  if (value_ptr == nullptr || !value_ptr->is_object()) {
    return ws_invalid{{}, bad_request("a message must be a JSON object")};
  }
  json::value& value = *value_ptr;
  json::object& object = value.as_object();
  std::string id;
  if (const json::value* v = object.if_contains("id"); v != nullptr && v->is_string()) {
    id = std::string(v->as_string());
  }
  const json::value* type = object.if_contains("type");
  if (type == nullptr || !type->is_string()) {
    return ws_invalid{id, bad_request("\"type\" must be a string", "type")};
  }
  if (id.empty()) return ws_invalid{{}, bad_request("\"id\" must be a non-empty string", "id")};
  const json::string& name = type->as_string();
  if (name == "cancel") return ws_cancel{id};
  if (name != "completion" && name != "chat.completion") {
    return ws_invalid{id,
                      bad_request("unknown message type \"" + std::string(name) + "\"", "type")};
  }
  const api_kind kind = name == "completion" ? api_kind::completion : api_kind::chat_completion;
  bool lifecycle = false;
  if (const json::value* v = object.if_contains("lifecycle"); v != nullptr && !v->is_null()) {
    if (!v->is_bool()) {
      return ws_invalid{id, bad_request("\"lifecycle\" must be a boolean", "lifecycle")};
    }
    lifecycle = v->as_bool();
  }
  object.erase("type");
  object.erase("id");
  object.erase("stream");
  object.erase("lifecycle");
  return ws_submit{std::move(id), kind, std::move(value), lifecycle};
}

std::string ws_error_message(std::string_view id, const api_error& err) {
  json::object message{{"type", "error"}, {"id", id}};
  message["error"] = to_json(err).at("error");
  return json::serialize(message);
}

std::string ws_lifecycle_message(std::string_view id, std::size_t choice,
                                 const request_lifecycle& lifecycle) {
  json::object message{{"type", "lifecycle"},    {"id", id},
                       {"index", choice},        {"stage", to_string(lifecycle.stage)},
                       {"step", lifecycle.step}, {"time", lifecycle.time}};
  if (lifecycle.stage == lifecycle_stage::scheduled ||
      lifecycle.stage == lifecycle_stage::resumed) {
    message["cached_tokens"] = lifecycle.num_cached_tokens;
  }
  if (lifecycle.stage == lifecycle_stage::preempted) {
    message["computed_tokens_lost"] = lifecycle.num_computed_tokens_lost;
  }
  return json::serialize(message);
}

api_error backpressure_error(std::uint64_t max_send_queue_bytes) {
  return api_error{
      429,
      "send queue over " + std::to_string(max_send_queue_bytes) + " bytes: client reads too slowly",
      "backpressure",
      {},
      {}};
}

ws_call::ws_call(server_context& ctx, std::string id, api_request request,
                 clock::time_point arrival)
    : ctx_(ctx),
      id_(std::move(id)),
      request_(std::move(request)),
      arrival_(arrival),
      reasons_(request_.prompts.size() * request_.n),
      prompt_tokens_(request_.prompts.size()),
      last_token_(reasons_.size()),
      finished_messages_(reasons_.size()),
      registration_(ctx.calls) {}

ws_call::~ws_call() {
  for (const submission& s : submissions_) s.cancel();
}

void ws_call::on_accepted(std::size_t /*prompt*/, const result<request_id>& id,
                          std::vector<std::string>& out) {
  if (finished_ || id.ok()) return;
  for (const submission& s : submissions_) s.cancel();
  finished_ = true;
  out.push_back(ws_error_message(id_, to_api_error(id.err())));
}

void ws_call::on_event(std::size_t prompt, const engine_event& event,
                       std::vector<std::string>& out) {
  if (finished_ || prompt >= prompt_tokens_.size()) return;
  if (const auto* chunk = std::get_if<token_chunk>(&event)) {
    on_chunk(prompt, *chunk, out);
  } else if (const auto* final = std::get_if<request_final>(&event)) {
    on_final(prompt, *final, out);
  } else {
    on_lifecycle(prompt, std::get<request_lifecycle>(event), out);
  }
}

// Only requests submitted with "lifecycle": true get these (websocket_session::submit).
void ws_call::on_lifecycle(std::size_t prompt, const request_lifecycle& lifecycle,
                           std::vector<std::string>& out) {
  const std::size_t choice = prompt * request_.n + lifecycle.index;
  if (choice >= reasons_.size() || reasons_[choice]) return;
  std::string message = ws_lifecycle_message(id_, choice, lifecycle);
  if (lifecycle.stage == lifecycle_stage::finished) {
    finished_messages_[choice] = std::move(message);  // the final comes next: see on_final
  } else {
    out.push_back(std::move(message));
  }
}

void ws_call::on_chunk(std::size_t prompt, const token_chunk& chunk,
                       std::vector<std::string>& out) {
  const std::size_t choice = prompt * request_.n + chunk.index;
  if (choice >= reasons_.size()) return;
  if (!chunk.token_ids.empty()) {
    const auto now = clock::now();
    if (!first_token_seen_) {
      first_token_seen_ = true;
      ctx_.metrics.observe_time_to_first_token(seconds_between(arrival_, now));
    }
    if (last_token_[choice]) {
      ctx_.metrics.observe_inter_token_latency(seconds_between(*last_token_[choice], now));
    }
    last_token_[choice] = now;
  }
  out.push_back(delta_message(choice, chunk.text, chunk.token_ids, chunk.logprobs));
}

void ws_call::on_final(std::size_t prompt, const request_final& final,
                       std::vector<std::string>& out) {
  const std::size_t choice = prompt * request_.n + final.index;
  if (choice >= reasons_.size() || reasons_[choice]) return;
  if (!final.text.empty()) out.push_back(delta_message(choice, final.text, {}, {}));
  if (!finished_messages_[choice].empty()) out.push_back(std::move(finished_messages_[choice]));
  reasons_[choice] = final.reason;
  prompt_tokens_[prompt] = final.usage.prompt_tokens;
  completion_tokens_ += final.usage.completion_tokens;
  if (final.queue_time_s > 0.0) ctx_.metrics.observe_queue_time(final.queue_time_s);
  if (final.reason == finish_reason::error && !engine_error_) engine_error_ = final.error_message;
  if (++num_finals_ < reasons_.size()) return;
  finished_ = true;
  ctx_.metrics.observe_e2e_latency(seconds_between(arrival_, clock::now()));
  if (engine_error_) {
    out.push_back(ws_error_message(id_, internal_error(*engine_error_)));
    return;
  }
  out.push_back(done_message());
}

void ws_call::cancel() {
  for (const submission& s : submissions_) s.cancel();
}

void ws_call::fail(const api_error& err, std::vector<std::string>& out) {
  if (finished_) return;
  cancel();
  finished_ = true;
  out.push_back(ws_error_message(id_, err));
}

std::string ws_call::delta_message(std::size_t choice, const std::string& text,
                                   const std::vector<token_id>& token_ids,
                                   const std::vector<chunk_logprob>& logprobs) const {
  json::array ids;
  ids.reserve(token_ids.size());
  for (token_id t : token_ids) ids.push_back(t);
  json::object message{{"type", "delta"},
                       {"id", id_},
                       {"index", choice},
                       {"text", text},
                       {"token_ids", std::move(ids)}};
  if (!logprobs.empty()) message["logprobs"] = logprobs_json(logprobs);
  return json::serialize(message);
}

std::string ws_call::done_message() const {
  std::uint32_t prompt_tokens = 0;
  for (std::uint32_t n : prompt_tokens_) prompt_tokens += n;
  json::object message{
      {"type", "done"}, {"id", id_}, {"finish_reason", finish_reason_name(*reasons_.front())}};
  if (reasons_.size() > 1) {
    json::array reasons;
    for (const auto& reason : reasons_)
      reasons.push_back(json::string(finish_reason_name(*reason)));
    message["finish_reasons"] = std::move(reasons);
  }
  message["usage"] = json::object{{"prompt_tokens", prompt_tokens},
                                  {"completion_tokens", completion_tokens_},
                                  {"total_tokens", prompt_tokens + completion_tokens_}};
  return json::serialize(message);
}

}  // namespace pagedserve::net
