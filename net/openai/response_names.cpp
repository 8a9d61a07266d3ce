// response_builder.h's free functions: response ids and finish reason names.

#include <random>

#include "net/openai/response_builder.h"
#include "net/openai/response_ids.h"
#include "net/openai/response_tool_calls.h"

namespace pagedserve::net {

std::string make_prefixed_id(std::string id) {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  static constexpr char k_hex[] = "0123456789abcdef";
  for (int word = 0; word < 2; ++word) {
    std::uint64_t bits = rng();
    for (int i = 0; i < 16; ++i, bits >>= 4U) id += k_hex[bits & 0xFU];
  }
  return id;
}

std::string make_response_id(api_kind kind) {
  if (kind == api_kind::embedding) return make_prefixed_id("embd-");
  return make_prefixed_id(kind == api_kind::chat_completion ? "chatcmpl-" : "cmpl-");
}

std::string make_tool_call_id() { return make_prefixed_id("chatcmpl-tool-"); }

std::string_view finish_reason_name(finish_reason kind) {
  // OpenAI/vLLM call a cancelled request "abort"; the other names are the engine's own.
  return kind == finish_reason::cancelled ? "abort" : to_string(kind);
}

}  // namespace pagedserve::net
