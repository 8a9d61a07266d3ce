#pragma once
// finish_reason: why a sequence (a completion) ended, in one vocabulary from the scheduler
// up to the network layer (which spells it in OpenAI's terms: net/openai/response_builder.h).

#include <string_view>

namespace pagedserve {

enum class finish_reason {
  stop,       // EOS, a stop token id or a stop string
  length,     // max_tokens reached
  cancelled,  // cancel() by the caller, or its sink went away
  error,      // the request failed: a failed step, a shutdown timeout, a rejection after admission
};

// "stop", "length", "cancelled", "error".
[[nodiscard]] std::string_view to_string(finish_reason reason);

}  // namespace pagedserve
