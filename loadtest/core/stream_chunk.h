#pragma once
// What one SSE data payload of an OpenAI-compatible streaming response says, for either
// route: "[DONE]", an error object, or a chunk whose choices carry text (completions:
// choices[].text; chat: choices[].delta.content, also delta.reasoning_content) and perhaps
// usage (stream_options.include_usage) and finish reasons.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/result.h"

namespace pagedserve::loadtest {

enum class api_kind { completions, chat_completions };

struct usage_counts {
  std::uint64_t prompt_tokens = 0;
  std::uint64_t completion_tokens = 0;
};

struct stream_chunk {
  bool done = false;                 // the "[DONE]" sentinel
  std::optional<std::string> error;  // {"error": {"message": ...}} (or a bare message)
  // Choices that carry tokens: text/content that is not empty, or empty text that is neither
  // chat's role announcement nor a finish marker (servers such as vLLM, and ours, send a chunk
  // per token even when its text is held back). TTFT and ITL are taken at these chunks.
  std::size_t num_token_choices = 0;
  std::size_t text_bytes = 0;         // their text, summed
  std::optional<usage_counts> usage;  // a non-null usage object
  bool has_finish_reason = false;     // some choice has a non-null finish_reason
};

// Fails (a message naming what was wrong) when the payload is neither "[DONE]" nor JSON
// shaped as above.
[[nodiscard]] result<stream_chunk> parse_stream_chunk(std::string_view data, api_kind kind);

}  // namespace pagedserve::loadtest
