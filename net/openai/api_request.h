#pragma once
// api_request: a /v1/completions or /v1/chat/completions body (or a WebSocket request
// message, which carries the same fields), parsed and validated into engine requests. Text
// is tokenized here (the chat template applied first), so prompt lengths are checked before
// anything reaches the engine and usage counts are exact. Bad input is an api_error (400)
// naming the field; nothing here throws.

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <boost/json.hpp>

#include "api/generation_defaults.h"
#include "api/generation_request.h"
#include "net/openai/api_error.h"
#include "net/openai/reasoning_parser.h"
#include "net/openai/tool_call_parser.h"
#include "runtime/chat/chat_template.h"
#include "runtime/tokenizer/tokenizer.h"

namespace pagedserve::net {

// The served model as the parser needs it. Pointers are non-owning and outlive the parse.
struct model_context {
  std::string served_model_name;  // requests must name it (or leave `model` out)
  std::uint32_t max_model_len = 0;
  std::uint32_t vocab_size = 0;
  std::uint32_t max_n = 16;
  const tokenizer* tok = nullptr;            // null: only token-id prompts are accepted
  const chat_template* template_ = nullptr;  // null: chat is refused with a clear 400
  // vLLM's --trust-request-chat-template: a request may bring its own `chat_template`.
  bool trust_request_chat_template = false;
  // For sampling fields a request leaves out (generation_config auto).
  generation_defaults sampling_defaults;
  // The server's reasoning_parser: how chat answers are split (reasoning_parser.h).
  reasoning_parser_kind reasoning_parser = reasoning_parser_kind::none;
  // The server's tool_call_parser, and whether tool_choice auto may use it.
  std::optional<tool_call_format> tool_call_parser;
  bool enable_auto_tool_choice = false;
  // Embeddings: how requests pool (the server's pooling_type key, else the folder's
  // declared pooling, else last), the vectors' size, and the Matryoshka cuts `dimensions`
  // may ask for (is_matryoshka with an empty list: any size up to hidden_size).
  pooling_type pooling = pooling_type::last;
  std::uint32_t hidden_size = 0;
  bool is_matryoshka = false;
  std::vector<std::uint32_t> matryoshka_dimensions;
};

// Chat with tools whose answer is read as tool calls (chat_tool_fields.h): the format the
// text has (the server's parser for tool_choice auto; json_array or named when the grammar
// engine forces it) and whether more than one call may come.
struct tool_call_options {
  tool_call_format format = tool_call_format::hermes;
  std::string named_function;  // format named
  bool parallel_tool_calls = true;
};

enum class api_kind { completion, chat_completion, embedding };

// One prompt of the request (/v1/completions accepts a list of prompts: choice index =
// prompt_index * n + completion index, as in OpenAI/vLLM).
struct api_prompt {
  generation_request request;  // prompt_token_ids filled in; `prompt` text left empty
  std::string prompt_text;     // what echo returns (decoded when the prompt came as ids)
};

struct api_request {
  api_kind kind = api_kind::completion;
  std::string model;                // as the client sent it, else served_model_name
  std::vector<api_prompt> prompts;  // exactly one for chat
  std::uint32_t n = 1;
  bool stream = false;
  bool include_usage = false;           // stream_options.include_usage
  bool continuous_usage_stats = false;  // stream_options.continuous_usage_stats (vLLM)
  bool echo = false;                    // completions: prompt text before the completion
  // Completions: `logprobs` N (0..20) → N alternatives per token. Chat: `logprobs: true` and
  // `top_logprobs` N. Absent: no logprobs.
  std::optional<std::int32_t> logprobs;
  // vLLM's prompt_logprobs N; completions with echo and logprobs N default it to N (the
  // prompt's logprobs then lead the choice's). Chat answers carry them at the top level.
  std::optional<std::int32_t> prompt_logprobs;
  // Completions with echo and max_tokens 0 (vLLM): the engine generates one token, which
  // the response leaves out: the choice is the prompt (and its logprobs) alone.
  bool echo_only = false;
  std::string user;  // passed through, unused
  // vLLM's truncate_prompt_tokens (-1 already resolved to max_model_len): only the last this
  // many prompt tokens are kept.
  std::optional<std::uint32_t> truncate_prompt_tokens;
  // Chat: the model's reasoning_parser, unless chat_template_kwargs.enable_thinking is false.
  reasoning_parser_kind reasoning_parser = reasoning_parser_kind::none;
  // Chat with tools and tool_choice other than none: the answer becomes tool_calls.
  std::optional<tool_call_options> tool_calls;
  // Embeddings: encoding_format "base64" (each vector's little-endian float32 bytes).
  bool embedding_base64 = false;
};

using parse_outcome = std::variant<api_request, api_error>;

// `body` is the request's JSON (already parsed; a parse failure is the caller's 400).
[[nodiscard]] parse_outcome parse_completion_request(const boost::json::value& body,
                                                     const model_context& model);
[[nodiscard]] parse_outcome parse_chat_request(const boost::json::value& body,
                                               const model_context& model);
// /v1/embeddings (embeddings_request.cpp): `input` read as /v1/completions reads `prompt`,
// one embedding request per input (sampling.pooling set), kind embedding.
[[nodiscard]] parse_outcome parse_embedding_request(const boost::json::value& body,
                                                    const model_context& model);

}  // namespace pagedserve::net
