#include "net/openai/tokenize_request.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "net/openai/body_reader.h"
#include "net/openai/chat_messages.h"
#include "net/openai/chat_rendering.h"
#include "net/openai/chat_tool_fields.h"
#include "net/openai/request_fields.h"

namespace pagedserve::net {
namespace {

using ids_outcome = std::variant<std::vector<token_id>, api_error>;

std::optional<api_error> not_an_object(const boost::json::value& body) {
  if (body.is_object()) return std::nullopt;
  return bad_request("The request body must be a JSON object, got " + std::string(kind_name(body)) +
                     ".");
}

api_error needs_a_tokenizer() {
  return bad_request("This model has no tokenizer to tokenize with.");
}

// {"prompt": "text"}: add_special_tokens defaults to true (vLLM's completion form).
ids_outcome tokenize_prompt(body_reader& reader, const boost::json::value& prompt,
                            const model_context& model) {
  const bool add_special_tokens = reader.boolean("add_special_tokens").value_or(true);
  if (reader.failed()) return reader.error();
  if (!prompt.is_string()) return invalid_type("prompt", "a string", prompt);
  return model.tok->encode(std::string_view(prompt.get_string()), add_special_tokens);
}

// {"messages": [...]}: rendered as /v1/chat/completions renders them (the same template
// fields); add_special_tokens defaults to false (the template writes them).
ids_outcome tokenize_messages(body_reader& reader, const boost::json::value& messages,
                              const model_context& model) {
  chat_params params;
  read_chat_template_fields(reader, model, params);
  const bool add_special_tokens = reader.boolean("add_special_tokens").value_or(false);
  (void)read_tools(reader, params.chat);
  if (reader.failed()) return reader.error();
  auto normalized = normalize_messages(messages);
  if (auto* err = std::get_if<api_error>(&normalized)) return std::move(*err);
  params.chat.messages = std::get<boost::json::array>(std::move(normalized));
  auto text = render_chat_text(params, model);
  if (auto* err = std::get_if<api_error>(&text)) return std::move(*err);
  const std::string& rendered = std::get<std::string>(text);
  return add_special_tokens ? model.tok->encode(rendered, true) : encode_chat(*model.tok, rendered);
}

boost::json::value token_strings(const std::vector<token_id>& ids, const tokenizer& tok) {
  boost::json::array strings;
  strings.reserve(ids.size());
  for (const token_id id : ids) strings.emplace_back(tok.id_to_token(id).value_or(""));
  return strings;
}

}  // namespace

std::variant<boost::json::object, api_error> tokenize(const boost::json::value& body,
                                                      const model_context& model) {
  if (auto err = not_an_object(body)) return std::move(*err);
  body_reader reader(body.get_object());
  read_model_name(reader, model);
  const bool return_token_strs = reader.boolean("return_token_strs").value_or(false);
  if (reader.failed()) return reader.error();
  const boost::json::value* prompt = reader.find("prompt");
  const boost::json::value* messages = reader.find("messages");
  if ((prompt == nullptr) == (messages == nullptr)) {
    return bad_request("Give exactly one of 'prompt' and 'messages'.",
                       prompt == nullptr ? "prompt" : "messages");
  }
  if (model.tok == nullptr) return needs_a_tokenizer();
  ids_outcome ids = prompt != nullptr ? tokenize_prompt(reader, *prompt, model)
                                      : tokenize_messages(reader, *messages, model);
  if (auto* err = std::get_if<api_error>(&ids)) return std::move(*err);
  const std::vector<token_id>& tokens = std::get<std::vector<token_id>>(ids);
  boost::json::object out;
  out["count"] = tokens.size();
  out["max_model_len"] = model.max_model_len;
  out["tokens"] = boost::json::value_from(tokens);
  out["token_strs"] = return_token_strs ? token_strings(tokens, *model.tok) : nullptr;
  return out;
}

std::variant<boost::json::object, api_error> detokenize(const boost::json::value& body,
                                                        const model_context& model) {
  if (auto err = not_an_object(body)) return std::move(*err);
  body_reader reader(body.get_object());
  read_model_name(reader, model);
  const boost::json::array* tokens = reader.array("tokens");
  if (reader.failed()) return reader.error();
  if (tokens == nullptr) return bad_request("'tokens' is required.", "tokens");
  if (model.tok == nullptr) return needs_a_tokenizer();
  std::vector<token_id> ids;
  ids.reserve(tokens->size());
  for (const boost::json::value& v : *tokens) {
    const std::optional<std::int64_t> id = integral_value(v);
    if (!id || *id < 0 || *id >= static_cast<std::int64_t>(model.vocab_size)) {
      return bad_request("'tokens' must hold token ids in [0, " + std::to_string(model.vocab_size) +
                             "), got " + quote_value(v) + ".",
                         "tokens");
    }
    ids.push_back(static_cast<token_id>(*id));
  }
  return boost::json::object{{"prompt", model.tok->decode(ids, /*skip_special_tokens=*/false)}};
}

}  // namespace pagedserve::net
