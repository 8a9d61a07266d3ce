#pragma once
// bench_request: one request a load test sends. The prompt is token ids (exact length, sent as
// a list of ints to /v1/completions) or text (sent as a string, or as one user message to
// /v1/chat/completions; its length in tokens is then learned from the server's usage).

#include <cstdint>
#include <string>
#include <vector>

#include "common/types.h"

namespace pagedserve::loadtest {

struct bench_request {
  std::vector<token_id> prompt_token_ids;  // used when not empty
  std::string prompt_text;                 // used when prompt_token_ids is empty
  std::uint32_t max_tokens = 16;

  [[nodiscard]] bool has_token_ids() const { return !prompt_token_ids.empty(); }
  // Prompt tokens as known before sending: the ids' count, 0 for a text prompt.
  [[nodiscard]] std::uint64_t known_prompt_tokens() const { return prompt_token_ids.size(); }
};

}  // namespace pagedserve::loadtest
