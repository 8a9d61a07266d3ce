#include "net/openai/messages_dialect.h"

#include <utility>

#include "net/openai/anthropic_error.h"
#include "net/openai/response_ids.h"

namespace pagedserve::net {
namespace {

namespace json = boost::json;

sse_event event(std::string_view name, json::object data) {
  data["type"] = name;
  return {std::string(name), json::serialize(data)};
}

// A chat finish_reason (with the chat choice's stop_reason) as Anthropic's stop_reason.
std::string stop_reason_of(const json::object& choice, bool called_tool, json::value& sequence) {
  const std::string_view reason = string_or_empty(choice, "finish_reason");
  sequence = nullptr;
  if (reason == "length") return "max_tokens";  // even after a call: the answer was cut
  if (called_tool || reason == "tool_calls") return "tool_use";
  if (const json::value* s = choice.if_contains("stop_reason"); s != nullptr && s->is_string()) {
    sequence = *s;
    return "stop_sequence";
  }
  return "end_turn";
}

json::value parsed_arguments(std::string_view arguments) {
  json::error_code ec;
  json::value v = json::parse(arguments, ec);
  return !ec && v.is_object() ? v : json::value(json::object());
}

}  // namespace

messages_dialect::messages_dialect(std::string model, std::uint32_t prompt_tokens)
    : id_(make_prefixed_id("msg_")), model_(std::move(model)), prompt_tokens_(prompt_tokens) {}

json::object messages_dialect::usage_json() const {
  return {{"input_tokens", prompt_tokens_ - std::min(cached_tokens_, prompt_tokens_)},
          {"cache_creation_input_tokens", 0},
          {"cache_read_input_tokens", cached_tokens_},
          {"output_tokens", output_tokens_}};
}

json::object messages_dialect::message_head() const {
  return {{"id", id_},
          {"type", "message"},
          {"role", "assistant"},
          {"model", model_},
          {"content", json::array()},
          {"stop_reason", nullptr},
          {"stop_sequence", nullptr}};
}

void messages_dialect::open_block(block kind, json::object start, std::vector<sse_event>& out) {
  close_block(out);
  open_ = kind;
  ++block_index_;
  out.push_back(
      event("content_block_start", {{"index", block_index_}, {"content_block", std::move(start)}}));
}

void messages_dialect::close_block(std::vector<sse_event>& out) {
  if (open_ == block::none) return;
  open_ = block::none;
  out.push_back(event("content_block_stop", {{"index", block_index_}}));
}

void messages_dialect::delta(json::object delta, std::vector<sse_event>& out) {
  out.push_back(
      event("content_block_delta", {{"index", block_index_}, {"delta", std::move(delta)}}));
}

void messages_dialect::on_tool_calls(const json::array& calls, std::vector<sse_event>& out) {
  for (const json::value& v : calls) {
    if (!v.is_object()) continue;
    const json::object& call = v.get_object();
    const json::object* function = call.contains("function") && call.at("function").is_object()
                                       ? &call.at("function").get_object()
                                       : nullptr;
    if (call.contains("id")) {  // a call's first delta: its id and name
      called_tool_ = true;
      open_block(block::tool_use,
                 {{"type", "tool_use"},
                  {"id", call.at("id")},
                  {"name", function != nullptr ? string_or_empty(*function, "name") : ""},
                  {"input", json::object()}},
                 out);
    }
    const std::string_view args =
        function != nullptr ? string_or_empty(*function, "arguments") : std::string_view();
    if (!args.empty() && open_ == block::tool_use) {
      delta({{"type", "input_json_delta"}, {"partial_json", args}}, out);
    }
  }
}

void messages_dialect::read_usage(const json::object& usage) {
  output_tokens_ =
      static_cast<std::uint32_t>(usage.at("completion_tokens").to_number<std::int64_t>());
  cached_tokens_ = static_cast<std::uint32_t>(
      usage.at("prompt_tokens_details").at("cached_tokens").to_number<std::int64_t>());
}

void messages_dialect::on_finish(const json::object& choice) {
  stop_reason_ = stop_reason_of(choice, called_tool_, stop_sequence_);
}

void messages_dialect::on_chunk(const json::object& chunk, std::vector<sse_event>& out) {
  if (!started_) {
    started_ = true;
    json::object message = message_head();
    message["usage"] = usage_json();
    out.push_back(event("message_start", {{"message", std::move(message)}}));
  }
  const chat_chunk_view view = read_chat_chunk(chunk);
  if (view.usage != nullptr) read_usage(*view.usage);
  if (!view.reasoning.empty()) {
    if (open_ != block::thinking) {
      open_block(block::thinking, {{"type", "thinking"}, {"thinking", ""}, {"signature", ""}}, out);
    }
    delta({{"type", "thinking_delta"}, {"thinking", view.reasoning}}, out);
  }
  if (!view.content.empty()) {
    if (open_ != block::text) open_block(block::text, {{"type", "text"}, {"text", ""}}, out);
    delta({{"type", "text_delta"}, {"text", view.content}}, out);
  }
  if (view.tool_calls != nullptr) on_tool_calls(*view.tool_calls, out);
  if (view.finished != nullptr) on_finish(*view.finished);
}

void messages_dialect::close(std::vector<sse_event>& out) {
  if (!started_) on_chunk(json::object(), out);
  close_block(out);
  out.push_back(
      event("message_delta",
            {{"delta", {{"stop_reason", stop_reason_}, {"stop_sequence", stop_sequence_}}},
             {"usage", usage_json()}}));
  out.push_back(event("message_stop", {}));
}

std::string messages_dialect::body(const json::object& completion) {
  read_usage(completion.at("usage").get_object());
  const json::object& choice = completion.at("choices").at(0).get_object();
  const json::object& message = choice.at("message").get_object();
  json::array content;
  if (const std::string_view r = string_or_empty(message, "reasoning_content"); !r.empty()) {
    content.push_back(json::object{{"type", "thinking"}, {"thinking", r}, {"signature", ""}});
  }
  if (const std::string_view text = string_or_empty(message, "content"); !text.empty()) {
    content.push_back(json::object{{"type", "text"}, {"text", text}});
  }
  if (const json::value* calls = message.if_contains("tool_calls");
      calls != nullptr && calls->is_array()) {
    for (const json::value& call : calls->get_array()) {
      const json::object& function = call.at("function").get_object();
      called_tool_ = true;
      content.push_back(
          json::object{{"type", "tool_use"},
                       {"id", call.at("id")},
                       {"name", function.at("name")},
                       {"input", parsed_arguments(string_or_empty(function, "arguments"))}});
    }
  }
  on_finish(choice);
  json::object out = message_head();
  out["content"] = std::move(content);
  out["stop_reason"] = stop_reason_;
  out["stop_sequence"] = stop_sequence_;
  out["usage"] = usage_json();
  return json::serialize(out);
}

sse_event messages_dialect::error_event(const api_error& err) {
  return {"error", to_anthropic_body(err)};
}

}  // namespace pagedserve::net
