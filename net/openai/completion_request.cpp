// parse_completion_request: /v1/completions. The prompt comes in four forms (a string, an
// array of token ids, an array of strings, an array of token-id arrays); each prompt
// becomes one generation_request with n completions.

#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "net/openai/api_request.h"
#include "net/openai/peer_fields.h"
#include "net/openai/processing_fields.h"
#include "net/openai/request_fields.h"

namespace pagedserve::net {
namespace {

// OpenAI's and vLLM's default completion budget for /v1/completions.
constexpr std::uint32_t k_default_completion_max_tokens = 16;

constexpr std::string_view k_prompt_forms =
    "a string, an array of strings, an array of token ids or an array of token-id arrays";

struct raw_prompt {
  std::vector<token_id> ids;
  std::optional<std::string> text;  // set: tokenize it
};

using raw_prompts = std::variant<std::vector<raw_prompt>, api_error>;

// One array of token ids (already known to be an array).
std::variant<std::vector<token_id>, api_error> read_id_array(const boost::json::array& items,
                                                             const model_context& model) {
  std::vector<token_id> ids;
  ids.reserve(items.size());
  for (const boost::json::value& item : items) {
    const std::optional<std::int64_t> id = integral_value(item);
    if (!id) return invalid_type("prompt", k_prompt_forms, item);
    if (*id < 0 || *id >= static_cast<std::int64_t>(model.vocab_size)) {
      return bad_request("Token id " + quote_value(item) +
                             " in 'prompt' is outside the vocabulary [0, " +
                             std::to_string(model.vocab_size) + ").",
                         "prompt");
    }
    ids.push_back(static_cast<token_id>(*id));
  }
  return ids;
}

raw_prompts read_array_prompts(const boost::json::array& items, const model_context& model) {
  std::vector<raw_prompt> prompts;
  if (items.front().is_number()) {  // one prompt of token ids
    auto ids = read_id_array(items, model);
    if (auto* err = std::get_if<api_error>(&ids)) return std::move(*err);
    prompts.push_back({std::get<std::vector<token_id>>(std::move(ids)), std::nullopt});
    return prompts;
  }
  if (items.size() > k_max_prompts) {
    return bad_request("'prompt' may hold at most " + std::to_string(k_max_prompts) +
                           " prompts, got " + std::to_string(items.size()) + ".",
                       "prompt");
  }
  const bool strings = items.front().is_string();
  for (const boost::json::value& item : items) {
    if (strings && item.is_string()) {
      prompts.push_back({{}, std::string(item.get_string())});
    } else if (!strings && item.is_array()) {
      auto ids = read_id_array(item.get_array(), model);
      if (auto* err = std::get_if<api_error>(&ids)) return std::move(*err);
      prompts.push_back({std::get<std::vector<token_id>>(std::move(ids)), std::nullopt});
    } else {
      return invalid_type("prompt", k_prompt_forms, item);
    }
  }
  return prompts;
}

raw_prompts read_prompts(const body_reader& reader, const model_context& model) {
  const boost::json::value* prompt = reader.find("prompt");
  if (prompt == nullptr) return bad_request("'prompt' is required.", "prompt");
  if (prompt->is_string()) {
    return std::vector<raw_prompt>{{{}, std::string(prompt->get_string())}};
  }
  if (!prompt->is_array()) return invalid_type("prompt", k_prompt_forms, *prompt);
  if (prompt->get_array().empty()) return bad_request("'prompt' must not be empty.", "prompt");
  return read_array_prompts(prompt->get_array(), model);
}

// Tokenizes a text prompt; fills the echo text. An empty prompt is refused in either form.
std::optional<api_error> finish_prompt(raw_prompt& raw, bool add_special_tokens,
                                       bool skip_special_tokens, const model_context& model,
                                       std::string& prompt_text) {
  if (raw.text) {
    if (raw.text->empty()) return bad_request("'prompt' must not be empty.", "prompt");
    if (model.tok == nullptr) {
      return bad_request("This model has no tokenizer: send 'prompt' as token ids.", "prompt");
    }
    raw.ids = model.tok->encode(*raw.text, add_special_tokens);
    prompt_text = std::move(*raw.text);
  } else if (model.tok != nullptr) {
    prompt_text = model.tok->decode(raw.ids, skip_special_tokens);
  }
  if (raw.ids.empty()) return bad_request("'prompt' must not be empty.", "prompt");
  return check_token_ids(raw.ids, model, "prompt");
}

// max_tokens: absent → 16 (within the context); null → the rest of the context; 0 only
// with echo (one token is generated and left out, as vLLM does).
std::optional<std::uint32_t> requested_max_tokens(const boost::json::object& body,
                                                  body_reader& reader, std::size_t prompt_len,
                                                  const model_context& model, api_request& out) {
  const std::int64_t least = out.echo ? 0 : 1;
  if (const auto given =
          reader.integer("max_tokens", least, std::numeric_limits<std::uint32_t>::max())) {
    if (*given > 0) return static_cast<std::uint32_t>(*given);
    out.echo_only = true;
    return 1U;
  }
  if (body.contains("max_tokens")) return std::nullopt;
  const std::size_t remaining =
      model.max_model_len > prompt_len ? model.max_model_len - prompt_len : 0;
  return static_cast<std::uint32_t>(
      std::min<std::size_t>(k_default_completion_max_tokens, std::max<std::size_t>(remaining, 1)));
}

// Fields only /v1/completions has: logprobs N, echo, suffix, add_special_tokens (after
// read_common_fields: prompt_logprobs is known).
void read_completion_fields(body_reader& reader, api_request& out, generation_request& base) {
  if (const auto n = reader.integer("logprobs", 0, k_max_logprobs)) {
    out.logprobs = static_cast<std::int32_t>(*n);
  }
  out.echo = reader.boolean("echo").value_or(false);
  if (out.echo && out.logprobs && !out.prompt_logprobs) {  // vLLM: echo's logprobs
    out.prompt_logprobs = out.logprobs;
    base.sampling.prompt_logprobs = out.logprobs;
  }
  if (const auto suffix = reader.string("suffix"); suffix && !suffix->empty()) {
    reader.fail(unsupported("suffix", "no insertion mode"));
  }
  base.add_special_tokens = reader.boolean("add_special_tokens").value_or(true);
  base.sampling.logprobs = out.logprobs;
}

}  // namespace

parse_outcome parse_completion_request(const boost::json::value& body, const model_context& model) {
  if (!body.is_object()) {
    return bad_request("The request body must be a JSON object, got " +
                       std::string(kind_name(body)) + ".");
  }
  const boost::json::object& object = body.get_object();
  body_reader reader(object);
  api_request out;
  out.kind = api_kind::completion;
  generation_request base;
  read_common_fields(reader, model, out, base);
  read_completion_fields(reader, out, base);
  refuse_peer_fields(reader, api_kind::completion);
  if (reader.failed()) return reader.error();

  raw_prompts raws = read_prompts(reader, model);
  if (auto* err = std::get_if<api_error>(&raws)) return std::move(*err);
  for (raw_prompt& raw : std::get<std::vector<raw_prompt>>(raws)) {
    api_prompt prompt;
    if (auto err = finish_prompt(raw, base.add_special_tokens, base.sampling.skip_special_tokens,
                                 model, prompt.prompt_text)) {
      return std::move(*err);
    }
    if (truncate_prompt(out, raw.ids) && model.tok != nullptr) {  // echo what was kept
      prompt.prompt_text = model.tok->decode(raw.ids, base.sampling.skip_special_tokens);
    }
    const auto requested = requested_max_tokens(object, reader, raw.ids.size(), model, out);
    if (reader.failed()) return reader.error();
    auto budget = resolve_max_tokens(raw.ids.size(), requested, model, "prompt", "max_tokens");
    if (auto* err = std::get_if<api_error>(&budget)) return std::move(*err);
    prompt.request = base;
    prompt.request.sampling.max_tokens = std::get<std::uint32_t>(budget);
    if (auto err = check_min_tokens(prompt.request)) return std::move(*err);
    prompt.request.prompt_token_ids = std::move(raw.ids);
    out.prompts.push_back(std::move(prompt));
  }
  return out;
}

}  // namespace pagedserve::net
