#include "net/openai/responses_dialect.h"

#include <ctime>
#include <utility>

#include "net/openai/response_ids.h"
#include "net/openai/responses_items.h"

namespace pagedserve::net {
namespace {

namespace json = boost::json;

json::value echoed(const json::object& echo, std::string_view key, json::value fallback) {
  const json::value* v = echo.if_contains(key);
  return v != nullptr ? *v : fallback;
}

}  // namespace

responses_dialect::responses_dialect(std::string model, json::object echo, json::array conversation,
                                     response_store* store)
    : id_(make_prefixed_id("resp_")),
      model_(std::move(model)),
      created_at_(static_cast<std::int64_t>(std::time(nullptr))),
      echo_(std::move(echo)),
      conversation_(std::move(conversation)),
      store_(store) {}

sse_event responses_dialect::event(std::string_view type, json::object data) {
  data["type"] = type;
  data["sequence_number"] = sequence_++;
  return {std::string(type), json::serialize(data)};
}

json::object responses_dialect::response_object(std::string_view status) const {
  json::object r{{"id", id_},
                 {"object", "response"},
                 {"created_at", created_at_},
                 {"status", status},
                 {"background", false},
                 {"error", nullptr},
                 {"incomplete_details",
                  incomplete_ ? json::value(json::object{{"reason", "max_output_tokens"}})
                              : json::value(nullptr)},
                 {"instructions", echoed(echo_, "instructions", nullptr)},
                 {"max_output_tokens", echoed(echo_, "max_output_tokens", nullptr)},
                 {"metadata", echoed(echo_, "metadata", json::object())},
                 {"model", model_},
                 {"output", items_},
                 {"parallel_tool_calls", echoed(echo_, "parallel_tool_calls", true)},
                 {"previous_response_id", echoed(echo_, "previous_response_id", nullptr)},
                 {"reasoning", echoed(echo_, "reasoning",
                                      json::object{{"effort", nullptr}, {"summary", nullptr}})},
                 {"store", store_ != nullptr},
                 {"temperature", echoed(echo_, "temperature", nullptr)},
                 {"text", echoed(echo_, "text", json::object{{"format", {{"type", "text"}}}})},
                 {"tool_choice", echoed(echo_, "tool_choice", "auto")},
                 {"tools", echoed(echo_, "tools", json::array())},
                 {"top_logprobs", echoed(echo_, "top_logprobs", 0)},
                 {"top_p", echoed(echo_, "top_p", nullptr)},
                 {"truncation", echoed(echo_, "truncation", "disabled")},
                 {"usage", usage_.empty() ? json::value(nullptr) : json::value(usage_)},
                 {"user", echoed(echo_, "user", nullptr)}};
  return r;
}

void responses_dialect::read_usage(const json::object& usage) {
  const auto count = [&](const json::value& v) { return v.to_number<std::int64_t>(); };
  const std::int64_t input = count(usage.at("prompt_tokens"));
  const std::int64_t output = count(usage.at("completion_tokens"));
  usage_ = {{"input_tokens", input},
            {"input_tokens_details",
             {{"cached_tokens", count(usage.at("prompt_tokens_details").at("cached_tokens"))}}},
            {"output_tokens", output},
            {"output_tokens_details", {{"reasoning_tokens", 0}}},
            {"total_tokens", input + output}};
}

void responses_dialect::read_finish(const json::object& choice) {
  incomplete_ = string_or_empty(choice, "finish_reason") == "length";
}

void responses_dialect::open_item(item kind, json::object added, std::vector<sse_event>& out) {
  close_item(out);
  open_ = kind;
  open_id_ = std::string(string_or_empty(added, "id"));
  open_text_.clear();
  const std::size_t index = items_.size();
  items_.push_back(added);
  out.push_back(
      event("response.output_item.added", {{"output_index", index}, {"item", std::move(added)}}));
  if (kind == item::message) {
    out.push_back(event("response.content_part.added", {{"item_id", open_id_},
                                                        {"output_index", index},
                                                        {"content_index", 0},
                                                        {"part", output_text_part("")}}));
  }
}

void responses_dialect::close_item(std::vector<sse_event>& out) {
  if (open_ == item::none) return;
  const std::size_t index = items_.size() - 1;
  json::object& it = items_.back().get_object();
  const json::object where{{"item_id", open_id_}, {"output_index", index}};
  if (open_ == item::reasoning) {
    json::object done = where;
    done["content_index"] = 0;
    done["text"] = open_text_;
    out.push_back(event("response.reasoning_text.done", std::move(done)));
    it = reasoning_item(open_id_, open_text_);
  } else if (open_ == item::message) {
    json::object done = where;
    done["content_index"] = 0;
    done["text"] = open_text_;
    done["logprobs"] = json::array();
    out.push_back(event("response.output_text.done", done));
    done.erase("text");
    done.erase("logprobs");
    done["part"] = output_text_part(open_text_);
    out.push_back(event("response.content_part.done", std::move(done)));
    it = message_item(open_id_, open_text_, "completed");
  } else {
    json::object done = where;
    done["name"] = it.at("name");
    done["arguments"] = open_text_;
    out.push_back(event("response.function_call_arguments.done", std::move(done)));
    it["arguments"] = open_text_;
    it["status"] = "completed";
  }
  out.push_back(event("response.output_item.done", {{"output_index", index}, {"item", it}}));
  open_ = item::none;
}

void responses_dialect::on_text(item kind, std::string_view text, std::vector<sse_event>& out) {
  if (open_ != kind) {
    json::object added = kind == item::reasoning
                             ? reasoning_item(make_prefixed_id("rs_"), "")
                             : message_item(make_prefixed_id("msg_"), "", "in_progress");
    if (kind == item::reasoning) added["content"] = json::array();  // filled at its end
    open_item(kind, std::move(added), out);
  }
  open_text_ += text;
  json::object delta{{"item_id", open_id_},
                     {"output_index", items_.size() - 1},
                     {"content_index", 0},
                     {"delta", text}};
  if (kind == item::message) delta["logprobs"] = json::array();
  out.push_back(event(
      kind == item::reasoning ? "response.reasoning_text.delta" : "response.output_text.delta",
      std::move(delta)));
}

void responses_dialect::on_tool_calls(const json::array& calls, std::vector<sse_event>& out) {
  for (const json::value& v : calls) {
    const json::object& call = v.get_object();
    const json::value* f = call.if_contains("function");
    const json::object empty;
    const json::object& function = f != nullptr && f->is_object() ? f->get_object() : empty;
    if (call.contains("id")) {  // a call's first delta: its id and name
      open_item(
          item::function_call,
          function_call_item(make_prefixed_id("fc_"), call.at("id"),
                             json::value(string_or_empty(function, "name")), "", "in_progress"),
          out);
    }
    const std::string_view args = string_or_empty(function, "arguments");
    if (args.empty() || open_ != item::function_call) continue;
    open_text_ += args;
    out.push_back(
        event("response.function_call_arguments.delta",
              {{"item_id", open_id_}, {"output_index", items_.size() - 1}, {"delta", args}}));
  }
}

void responses_dialect::on_chunk(const json::object& chunk, std::vector<sse_event>& out) {
  if (!started_) {
    started_ = true;
    out.push_back(event("response.created", {{"response", response_object("in_progress")}}));
    out.push_back(event("response.in_progress", {{"response", response_object("in_progress")}}));
  }
  const chat_chunk_view view = read_chat_chunk(chunk);
  if (view.usage != nullptr) read_usage(*view.usage);
  if (!view.reasoning.empty()) on_text(item::reasoning, view.reasoning, out);
  if (!view.content.empty()) on_text(item::message, view.content, out);
  if (view.tool_calls != nullptr) on_tool_calls(*view.tool_calls, out);
  if (view.finished != nullptr) read_finish(*view.finished);
}

void responses_dialect::close(std::vector<sse_event>& out) {
  if (!started_) on_chunk(json::object(), out);
  close_item(out);
  json::object response = response_object(incomplete_ ? "incomplete" : "completed");
  store_response(response);
  out.push_back(event(incomplete_ ? "response.incomplete" : "response.completed",
                      {{"response", std::move(response)}}));
}

std::string responses_dialect::body(const json::object& completion) {
  read_usage(completion.at("usage").get_object());
  const json::object& choice = completion.at("choices").at(0).get_object();
  read_finish(choice);
  items_ = output_items(choice.at("message").get_object());
  json::object response = response_object(incomplete_ ? "incomplete" : "completed");
  store_response(response);
  return json::serialize(response);
}

void responses_dialect::store_response(const json::object& response) {
  if (store_ == nullptr) return;
  conversation_.push_back(message_of_items(items_));
  store_->put(id_, stored_response{response, std::move(conversation_)});
}

sse_event responses_dialect::error_event(const api_error& err) {
  return event("error", {{"code", err.code ? json::value(*err.code) : json::value(err.type)},
                         {"message", err.message},
                         {"param", err.param ? json::value(*err.param) : json::value(nullptr)}});
}

}  // namespace pagedserve::net
