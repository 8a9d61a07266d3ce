#include "net/openai/response_builder.h"

#include "net/openai/prompt_logprobs_json.h"

#include <cstdio>
#include <cstdlib>
#include <utility>

namespace pagedserve::net {
namespace {

// The engine sends each completion's events in order and exactly one final; anything else
// is a bug in the caller or the engine.
void check(bool condition, const char* what) {
  if (!condition) [[unlikely]] {
    std::fprintf(stderr, "pagedserve::net::response_builder invariant broken: %s\n", what);
    std::abort();
  }
}

boost::json::value optional_string(const std::optional<std::string>& s) {
  return s ? boost::json::value(*s) : boost::json::value(nullptr);
}

}  // namespace

response_builder::response_builder(const api_request& request, const tokenizer* tok,
                                   std::string response_id, std::int64_t created)
    : kind_(request.kind),
      model_(request.model),
      n_(request.n),
      stream_(request.stream),
      include_usage_(request.stream && request.include_usage),
      continuous_usage_(request.stream && request.include_usage && request.continuous_usage_stats),
      echo_(request.echo && request.kind == api_kind::completion),
      want_logprobs_(request.logprobs.has_value()),
      want_prompt_logprobs_(request.prompt_logprobs.has_value()),
      echo_only_(request.echo_only),
      tok_(tok),
      id_(std::move(response_id)),
      created_(created) {
  check(n_ >= 1, "n must be at least 1");
  for (const api_prompt& p : request.prompts) {
    prompt_lens_.push_back(static_cast<std::uint32_t>(p.request.prompt_token_ids.size()));
    echo_texts_.push_back(echo_ ? p.prompt_text : std::string());
    if (want_prompt_logprobs_) prompt_ids_.push_back(p.request.prompt_token_ids);
  }
  prompt_lps_.resize(want_prompt_logprobs_ ? prompt_lens_.size() : 0);
  choices_.resize(prompt_lens_.size() * n_);
  for (std::size_t i = 0; i < choices_.size(); ++i) {
    choices_[i].index = static_cast<std::uint32_t>(i);
    choices_[i].prompt_index = i / n_;
    if (kind_ == api_kind::chat_completion &&
        request.reasoning_parser != reasoning_parser_kind::none) {
      choices_[i].reasoning.emplace(request.reasoning_parser);
    }
    if (kind_ == api_kind::chat_completion && request.tool_calls) {
      choices_[i].tools.emplace(*request.tool_calls);
    }
  }
}

response_builder::choice_state& response_builder::choice_at(std::size_t prompt_index,
                                                            std::uint32_t index) {
  check(prompt_index < prompt_lens_.size() && index < n_, "event for an unknown choice");
  choice_state& c = choices_[prompt_index * n_ + index];
  check(!c.finished, "event after the choice's final");
  return c;
}

void response_builder::on_chunk(std::size_t prompt_index, const token_chunk& event,
                                std::vector<std::string>& payloads) {
  choice_state& c = choice_at(prompt_index, event.index);
  // Completion 0's first chunk carries the prompt's logprobs; its siblings start later.
  if (want_prompt_logprobs_ && !event.prompt_logprobs.empty()) {
    prompt_lps_[prompt_index] = event.prompt_logprobs;
  }
  token_chunk muted;  // echo_only: the one generated token is left out
  const token_chunk& chunk = echo_only_ ? muted : event;
  const auto num_tokens = static_cast<std::uint32_t>(chunk.token_ids.size());
  if (!stream_) {
    c.num_streamed_tokens += num_tokens;
    split_text text = split(c, chunk.text, false);
    c.text += text.content;
    c.reasoning_text += text.reasoning;
    add_logprobs(c, chunk);
    return;
  }
  split_text text = split(c, chunk.text, false);
  boost::json::array tool_calls;
  stream_tool_calls(c, text, false, tool_calls);
  text.content = start_choice(c, payloads) + text.content;  // the role chunk precedes them
  c.num_streamed_tokens += num_tokens;
  boost::json::value logprobs = nullptr;
  if (want_logprobs_ && kind_ == api_kind::completion) {
    add_logprobs(c, chunk);
    if (!c.completion_lp.empty()) logprobs = c.completion_lp.take();
  } else if (want_logprobs_ && !chunk.logprobs.empty()) {
    boost::json::array content;
    for (const chunk_logprob& lp : chunk.logprobs) {
      content.emplace_back(chat_logprob_entry(lp, tok_));
    }
    logprobs = boost::json::object{{"content", std::move(content)}};
  }
  // A chunk per token event even when its text is held back (incomplete UTF-8, a possible
  // stop string), as vLLM does: clients time tokens by chunks (TTFT, ITL).
  if (num_tokens == 0 && text.content.empty() && text.reasoning.empty() && logprobs.is_null() &&
      tool_calls.empty()) {
    return;
  }
  payloads.push_back(stream_payload(
      stream_choice(c, std::move(text), std::move(logprobs), std::move(tool_calls))));
}

void response_builder::on_final(std::size_t prompt_index, const request_final& final,
                                std::vector<std::string>& payloads) {
  choice_state& c = choice_at(prompt_index, final.index);
  c.finished = true;
  ++num_finished_;
  c.reason = final.reason;
  c.stop_string = final.stop_string;
  c.completion_tokens = final.usage.completion_tokens;
  c.cached_prompt_tokens = final.usage.cached_prompt_tokens;
  if (final.reason == finish_reason::error && !error_message_) {
    error_message_ = final.error_message.empty() ? "generation failed" : final.error_message;
  }
  split_text text = split(c, echo_only_ ? std::string() : final.text, true);
  if (!stream_) {
    c.text += text.content;
    c.reasoning_text += text.reasoning;
    return;
  }
  boost::json::array tool_calls;
  stream_tool_calls(c, text, true, tool_calls);
  text.content = start_choice(c, payloads) + text.content;
  if (!text.content.empty() || !text.reasoning.empty() || !tool_calls.empty()) {
    payloads.push_back(
        stream_payload(stream_choice(c, std::move(text), nullptr, std::move(tool_calls))));
  }
  payloads.push_back(stream_payload(finish_choice(c)));
}

bool response_builder::done() const { return num_finished_ == choices_.size(); }

std::vector<std::string> response_builder::finish() {
  std::vector<std::string> payloads;
  if (stream_) {
    if (include_usage_) {
      boost::json::object last = envelope();
      last["choices"] = boost::json::array();
      last["usage"] = usage_json(/*streamed_so_far=*/false);
      payloads.push_back(boost::json::serialize(last));
    }
    return payloads;
  }
  boost::json::object body = envelope();
  boost::json::array list;
  list.reserve(choices_.size());
  for (choice_state& c : choices_) list.emplace_back(full_choice(c));
  body["choices"] = std::move(list);
  if (want_prompt_logprobs_ && kind_ == api_kind::chat_completion) {  // vLLM: top level
    body["prompt_logprobs"] = prompt_logprobs_json(prompt_ids_[0], prompt_lps_[0], tok_);
  }
  body["usage"] = usage_json(/*streamed_so_far=*/false);
  payloads.push_back(boost::json::serialize(body));
  return payloads;
}

request_usage response_builder::usage() const {
  request_usage u;
  std::vector<std::uint32_t> cached(prompt_lens_.size(), 0);
  for (const choice_state& c : choices_) {
    u.completion_tokens += c.finished ? c.completion_tokens : c.num_streamed_tokens;
    cached[c.prompt_index] = std::max(cached[c.prompt_index], c.cached_prompt_tokens);
  }
  for (std::size_t p = 0; p < prompt_lens_.size(); ++p) {
    u.prompt_tokens += prompt_lens_[p];  // once per prompt, not once per completion
    u.cached_prompt_tokens += cached[p];
  }
  return u;
}

const std::optional<std::string>& response_builder::error_message() const { return error_message_; }

// ---- shapes ----

boost::json::object response_builder::envelope() const {
  const bool chat = kind_ == api_kind::chat_completion;
  boost::json::object o;
  o["id"] = id_;
  o["object"] = chat ? (stream_ ? "chat.completion.chunk" : "chat.completion") : "text_completion";
  o["created"] = created_;
  o["model"] = model_;
  return o;
}

// Streamed chunks count the tokens sent so far (continuous_usage_stats); the closing usage
// takes each finished choice's count from its final.
boost::json::object response_builder::usage_json(bool streamed_so_far) const {
  request_usage u = usage();
  if (streamed_so_far) {
    u.completion_tokens = 0;
    for (const choice_state& c : choices_) u.completion_tokens += c.num_streamed_tokens;
  }
  boost::json::object o;
  o["prompt_tokens"] = u.prompt_tokens;
  o["completion_tokens"] = u.completion_tokens;
  o["total_tokens"] = u.prompt_tokens + u.completion_tokens;
  // OpenAI's prompt caching field: the prompt tokens the prefix cache already held.
  o["prompt_tokens_details"] = boost::json::object{{"cached_tokens", u.cached_prompt_tokens}};
  return o;
}

std::string response_builder::stream_payload(boost::json::object choice) const {
  boost::json::object o = envelope();
  o["choices"] = boost::json::array{std::move(choice)};
  if (continuous_usage_) {
    o["usage"] = usage_json(/*streamed_so_far=*/true);
  } else if (include_usage_) {
    o["usage"] = nullptr;
  }
  return boost::json::serialize(o);
}

std::string response_builder::start_choice(choice_state& c, std::vector<std::string>& payloads) {
  if (c.started) return {};
  c.started = true;
  if (kind_ == api_kind::completion) return echo_texts_[c.prompt_index];
  boost::json::object role;
  role["index"] = c.index;
  role["delta"] = boost::json::object{{"role", "assistant"}, {"content", ""}};
  role["logprobs"] = nullptr;
  role["finish_reason"] = nullptr;
  payloads.push_back(stream_payload(std::move(role)));
  return {};
}

split_text response_builder::split(choice_state& c, std::string_view text, bool at_end) {
  if (!c.reasoning) return {{}, std::string(text)};
  split_text out = c.reasoning->push(text);
  if (at_end) {
    split_text rest = c.reasoning->flush();
    out.reasoning += rest.reasoning;
    out.content += rest.content;
  }
  return out;
}

void response_builder::stream_tool_calls(choice_state& c, split_text& text, bool at_end,
                                         boost::json::array& tool_calls) const {
  if (!c.tools || !stream_) return;
  text.content = c.tools->push(text.content, tool_calls);
  if (at_end) text.content += c.tools->flush(tool_calls);
}

boost::json::object response_builder::stream_choice(const choice_state& c, split_text text,
                                                    boost::json::value logprobs,
                                                    boost::json::array tool_calls) const {
  boost::json::object o;
  o["index"] = c.index;
  if (kind_ == api_kind::completion) {
    o["text"] = std::move(text.content);
  } else {
    // vLLM's delta: the reasoning and/or the content this chunk decided ("content": "" when
    // neither, so that every token still has its chunk).
    boost::json::object delta;
    if (!text.reasoning.empty()) delta["reasoning_content"] = std::move(text.reasoning);
    if (!tool_calls.empty()) delta["tool_calls"] = std::move(tool_calls);
    if (!text.content.empty() || delta.empty()) delta["content"] = std::move(text.content);
    o["delta"] = std::move(delta);
  }
  o["logprobs"] = std::move(logprobs);
  o["finish_reason"] = nullptr;
  return o;
}

boost::json::object response_builder::finish_choice(const choice_state& c) const {
  boost::json::object o;
  o["index"] = c.index;
  if (kind_ == api_kind::completion) {
    o["text"] = "";
  } else {
    o["delta"] = boost::json::object();
  }
  o["logprobs"] = nullptr;
  o["finish_reason"] = finish_reason_of(c);
  o["stop_reason"] = optional_string(c.stop_string);
  return o;
}

// A choice that called tools of its own accord (auto) or as told (required) ends with
// "tool_calls"; a named function's call ends with "stop", as OpenAI's.
boost::json::value response_builder::finish_reason_of(const choice_state& c) {
  if (!c.finished) return nullptr;
  if (c.tools && c.tools->called() && !c.tools->named() && c.reason == finish_reason::stop) {
    return "tool_calls";
  }
  return boost::json::value(finish_reason_name(c.reason));
}

boost::json::object response_builder::message_of(choice_state& c) {
  boost::json::object message{{"role", "assistant"}, {"content", c.text}};
  if (c.reasoning) {  // vLLM: null where a side is empty
    message["reasoning_content"] = optional_string(
        c.reasoning_text.empty() ? std::nullopt : std::optional<std::string>(c.reasoning_text));
    if (c.text.empty()) message["content"] = nullptr;
  }
  if (c.tools) {
    boost::json::array calls;
    std::string content = c.tools->extract(c.text, calls);
    message["content"] =
        content.empty() ? boost::json::value(nullptr) : boost::json::value(content);
    message["tool_calls"] = std::move(calls);
  }
  return message;
}

boost::json::object response_builder::full_choice(choice_state& c) {
  boost::json::object o;
  o["index"] = c.index;
  boost::json::value logprobs = nullptr;
  if (kind_ == api_kind::completion) {
    o["text"] = echo_texts_[c.prompt_index] + c.text;
    if (want_logprobs_) logprobs = c.completion_lp.take();
    if (want_prompt_logprobs_) {
      o["prompt_logprobs"] =
          prompt_logprobs_json(prompt_ids_[c.prompt_index], prompt_lps_[c.prompt_index], tok_);
    }
  } else {
    o["message"] = message_of(c);
    if (want_logprobs_) logprobs = boost::json::object{{"content", std::move(c.chat_lp)}};
  }
  o["logprobs"] = std::move(logprobs);
  o["finish_reason"] = finish_reason_of(c);
  o["stop_reason"] = optional_string(c.stop_string);
  return o;
}

// Completions with echo: the prompt's tokens and logprobs come first (the first token has
// none), as vLLM joins prompt_logprobs and the output's.
void response_builder::add_logprobs(choice_state& c, const token_chunk& chunk) {
  if (!want_logprobs_) return;
  if (kind_ == api_kind::completion && echo_ && !c.prompt_lp_added) {
    c.prompt_lp_added = true;
    const std::vector<token_id>& ids = prompt_ids_[c.prompt_index];
    if (!ids.empty()) c.completion_lp.append_unscored(ids.front(), tok_);
    for (const chunk_logprob& lp : prompt_lps_[c.prompt_index]) c.completion_lp.append(lp, tok_);
  }
  for (const chunk_logprob& lp : chunk.logprobs) {
    if (kind_ == api_kind::completion) {
      c.completion_lp.append(lp, tok_);
    } else {
      c.chat_lp.emplace_back(chat_logprob_entry(lp, tok_));
    }
  }
}

}  // namespace pagedserve::net
