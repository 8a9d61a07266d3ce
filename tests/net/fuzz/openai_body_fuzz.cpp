// libFuzzer target: request bodies through the OpenAI parsers (completions and chat, with
// the Llama-3 and Qwen3 tokenizers and chat templates from tests/data, and with no tokenizer),
// the dialects that translate into chat (Anthropic Messages and OpenAI Responses, a first
// byte in [0xC0, 0xE0): odd Messages, even Responses), embeddings (from 0xE0) and WebSocket
// client messages through
// parse_ws_message. The first input byte picks the parser and the model; the rest is the
// body. Besides the sanitizers it checks properties
// that hold for every body:
//   - a request the parser accepts passes the engine's own checks (sampling_params::validate,
//     ids in the vocabulary, prompt + max_tokens within max_model_len, n within max_n), so the
//     engine never refuses it with its internal wording;
//   - a refusal is a 400 or 404 whose body is valid JSON in valid UTF-8, and names the field
//     (`param`) whenever the body was a JSON object.

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string_view>

#include <boost/json.hpp>

#include "net/http/ws_protocol.h"
#include "net/openai/api_request.h"
#include "net/openai/messages_request.h"
#include "net/openai/responses_request.h"
#include "runtime/chat/chat_template.h"
#include "runtime/tokenizer/tokenizer.h"
#include "runtime/tokenizer/utf8.h"
#include "tests/support/fixtures.h"

namespace {

using namespace pagedserve;
using namespace pagedserve::net;

void check(bool ok) {
  if (!ok) std::abort();
}

struct served {
  std::shared_ptr<const tokenizer> tok;
  std::optional<chat_template> chat;
  model_context context;
};

served load(const char* family) {
  served s;
  s.context.served_model_name = "fuzz-model";
  s.context.max_model_len = 256;
  s.context.max_n = 4;
  s.context.vocab_size = 1000;
  if (family == nullptr) return s;  // ids only
  auto tok = tokenizer::load(pagedserve::testing::tokenizers_dir() / family);
  check(tok.ok());
  s.tok = std::move(tok.value());
  auto chat = chat_template::for_tokenizer(*s.tok);
  check(chat.ok());
  s.chat.emplace(std::move(chat.value()));
  s.context.vocab_size = static_cast<std::uint32_t>(s.tok->vocab_size());
  s.context.tok = s.tok.get();
  s.context.template_ = &*s.chat;
  // Every path open: request templates, and tool_choice auto with a parser.
  s.context.trust_request_chat_template = true;
  s.context.tool_call_parser = tool_call_format::hermes;
  s.context.enable_auto_tool_choice = true;
  return s;
}

void check_accepted(const api_request& request, const model_context& model) {
  check(!request.prompts.empty());
  check(request.n >= 1 && request.n <= model.max_n);
  for (const api_prompt& prompt : request.prompts) {
    const generation_request& r = prompt.request;
    check(r.sampling.validate().ok());
    check(r.sampling.max_tokens >= 1);
    check(!r.prompt_token_ids.empty());
    check(r.prompt_token_ids.size() + r.sampling.max_tokens <= model.max_model_len);
    for (const token_id id : r.prompt_token_ids) {
      check(id >= 0 && static_cast<std::uint32_t>(id) < model.vocab_size);
    }
    for (const token_id id : r.sampling.stop_token_ids) {
      check(id >= 0 && static_cast<std::uint32_t>(id) < model.vocab_size);
    }
  }
}

void check_refused(const api_error& err, bool body_is_object) {
  check(err.status == 400 || err.status == 404);
  const std::string body = to_body(err);
  check(utf8::is_valid(body));
  boost::json::error_code ec;
  (void)boost::json::parse(body, ec);
  check(!ec);
  if (body_is_object) check(err.param.has_value() && !err.param->empty());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const served models[] = {load("llama3"), load("qwen3"), load(nullptr)};
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  const std::uint8_t selector = data[0];
  if (selector % 4 == 3) {
    (void)parse_ws_message(text);
    return 0;
  }
  const served& model = models[(selector / 4) % 3];
  boost::json::error_code ec;
  const boost::json::value body = boost::json::parse(text, ec);
  if (ec) return 0;
  if (selector >= 0xC0 && selector < 0xE0 && selector % 2 == 0) {
    static const response_store empty_store;
    auto translated = parse_responses_request(body, model.context, empty_store);
    if (auto* request = std::get_if<responses_request>(&translated)) {
      check_accepted(request->chat, model.context);
    } else {
      check_refused(std::get<api_error>(translated), body.is_object());
    }
    return 0;
  }
  const parse_outcome outcome =
      selector >= 0xC0    ? parse_messages_request(body, model.context, messages_endpoint::create)
      : selector % 4 == 0 ? parse_completion_request(body, model.context)
                          : parse_chat_request(body, model.context);
  if (const auto* request = std::get_if<api_request>(&outcome)) {
    check_accepted(*request, model.context);
  } else {
    check_refused(std::get<api_error>(outcome), body.is_object());
  }
  return 0;
}
