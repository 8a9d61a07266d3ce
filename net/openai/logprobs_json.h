#pragma once
// OpenAI's two logprobs shapes, built from the engine's per-token chunk_logprob values.
//
// Token strings are the token decoded on its own (tokenizer::decode of the one id, special
// tokens kept), as vLLM reports them: "Ġhello" becomes " hello". A token that holds only
// part of a UTF-8 character decodes to U+FFFD. Without a tokenizer the string is
// "token_id:<id>" (vLLM's return_tokens_as_token_ids spelling).
//
// Logprobs are the float the engine computed, written with the shortest decimal that reads
// back as that float. -inf (and NaN) cannot be written in JSON; like vLLM we send -9999.0.

#include <cstddef>
#include <string>

#include <boost/json.hpp>

#include "api/engine_events.h"
#include "runtime/tokenizer/tokenizer.h"

namespace pagedserve::net {

inline constexpr double k_min_json_logprob = -9999.0;

[[nodiscard]] std::string token_text(const tokenizer* tok, token_id id);
[[nodiscard]] double json_logprob(float logprob);

// Legacy completions: {"tokens", "token_logprobs", "top_logprobs", "text_offset"}. Each
// top_logprobs entry maps token string → logprob for the engine's top alternatives plus the
// chosen token (as vLLM; tokens whose strings coincide keep the likelier entry). text_offset
// counts Unicode code points of the token strings before each token, across the whole
// choice (like Python's len(), which vLLM uses).
class completion_logprobs {
 public:
  void append(const chunk_logprob& lp, const tokenizer* tok);
  // A token without logprobs (a prompt's first): null token_logprobs and top_logprobs.
  void append_unscored(token_id id, const tokenizer* tok);
  [[nodiscard]] bool empty() const { return tokens_.empty(); }
  // The arrays gathered since the last take (streaming sends one object per chunk);
  // text_offset keeps counting across takes.
  [[nodiscard]] boost::json::object take();

 private:
  boost::json::array tokens_;
  boost::json::array token_logprobs_;
  boost::json::array top_logprobs_;
  boost::json::array text_offset_;
  std::size_t next_offset_ = 0;
};

// Chat: one entry of logprobs.content: {"token", "logprob", "bytes", "top_logprobs":
// [{"token", "logprob", "bytes"}, ...]} with the engine's top alternatives, most likely
// first. "bytes" is the UTF-8 of the token string (vLLM's choice).
[[nodiscard]] boost::json::object chat_logprob_entry(const chunk_logprob& lp, const tokenizer* tok);

}  // namespace pagedserve::net
