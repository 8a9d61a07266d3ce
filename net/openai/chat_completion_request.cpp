// parse_chat_request: /v1/chat/completions. The messages are rendered through the model's
// chat template, or the request's own when the server trusts those (add_generation_prompt
// true unless the body says otherwise, as in vLLM), and the text encoded without special
// tokens (encode_chat): the template already has them.

#include <limits>
#include <string>
#include <utility>

#include "net/openai/api_request.h"
#include "net/openai/chat_messages.h"
#include "net/openai/chat_rendering.h"
#include "net/openai/chat_tool_fields.h"
#include "net/openai/peer_fields.h"
#include "net/openai/processing_fields.h"
#include "net/openai/request_fields.h"

namespace pagedserve::net {
namespace {

// logprobs (bool) and top_logprobs (0..20, only with logprobs true).
void read_chat_logprobs(body_reader& reader, api_request& out) {
  const bool logprobs = reader.boolean("logprobs").value_or(false);
  const auto top = reader.integer("top_logprobs", 0, k_max_logprobs);
  if (top && !logprobs) {
    reader.fail(bad_request("'top_logprobs' requires 'logprobs' to be true.", "top_logprobs"));
  }
  if (logprobs) out.logprobs = static_cast<std::int32_t>(top.value_or(0));
}

// max_completion_tokens wins over the deprecated max_tokens (as in vLLM). Absent: the rest
// of the context.
std::pair<std::optional<std::uint32_t>, std::string_view> read_budget(body_reader& reader) {
  constexpr auto k_max = std::numeric_limits<std::uint32_t>::max();
  const auto completion = reader.integer("max_completion_tokens", 1, k_max);
  const auto legacy = reader.integer("max_tokens", 1, k_max);
  if (completion) return {static_cast<std::uint32_t>(*completion), "max_completion_tokens"};
  if (legacy) return {static_cast<std::uint32_t>(*legacy), "max_tokens"};
  return {std::nullopt, "max_tokens"};
}

// The template's text and its token ids.
std::variant<std::vector<token_id>, api_error> render_prompt(chat_params& params,
                                                             const model_context& model) {
  auto text = render_chat_text(params, model);
  if (auto* err = std::get_if<api_error>(&text)) return std::move(*err);
  std::vector<token_id> ids = encode_chat(*model.tok, std::get<std::string>(text));
  if (ids.empty()) return bad_request("The rendered chat prompt is empty.", "messages");
  if (auto err = check_token_ids(ids, model, "messages")) return std::move(*err);
  return ids;
}

}  // namespace

parse_outcome parse_chat_request(const boost::json::value& body, const model_context& model) {
  if (!body.is_object()) {
    return bad_request("The request body must be a JSON object, got " +
                       std::string(kind_name(body)) + ".");
  }
  body_reader reader(body.get_object());
  api_request out;
  out.kind = api_kind::chat_completion;
  generation_request base;
  read_common_fields(reader, model, out, base);
  read_chat_logprobs(reader, out);
  refuse_peer_fields(reader, api_kind::chat_completion);
  chat_params params;
  read_chat_template_fields(reader, model, params);
  read_tool_fields(reader, model, params.chat, out, base.sampling);
  if (reader.boolean("echo").value_or(false)) reader.fail(unsupported("echo", "in chat"));
  const auto [requested, budget_param] = read_budget(reader);
  if (reader.failed()) return reader.error();

  const boost::json::value* messages = reader.find("messages");
  if (messages == nullptr) return bad_request("'messages' is required.", "messages");
  auto normalized = normalize_messages(*messages);
  if (auto* err = std::get_if<api_error>(&normalized)) return std::move(*err);
  params.chat.messages = std::get<boost::json::array>(std::move(normalized));
  auto ids = render_prompt(params, model);
  if (auto* err = std::get_if<api_error>(&ids)) return std::move(*err);
  std::vector<token_id>& prompt_ids = std::get<std::vector<token_id>>(ids);
  truncate_prompt(out, prompt_ids);

  auto budget = resolve_max_tokens(prompt_ids.size(), requested, model, "messages", budget_param);
  if (auto* err = std::get_if<api_error>(&budget)) return std::move(*err);
  api_prompt prompt;
  prompt.request = std::move(base);
  prompt.request.sampling.max_tokens = std::get<std::uint32_t>(budget);
  if (auto err = check_min_tokens(prompt.request)) return std::move(*err);
  prompt.request.prompt_token_ids = std::move(prompt_ids);
  prompt.request.add_special_tokens = false;
  prompt.request.sampling.logprobs = out.logprobs;
  out.prompts.push_back(std::move(prompt));
  // A model told not to think (Qwen3's enable_thinking) answers without tags: no split.
  const boost::json::value* thinking = params.chat.extra.if_contains("enable_thinking");
  const bool thinking_off = thinking != nullptr && thinking->is_bool() && !thinking->get_bool();
  out.reasoning_parser = thinking_off ? reasoning_parser_kind::none : model.reasoning_parser;
  return out;
}

}  // namespace pagedserve::net
