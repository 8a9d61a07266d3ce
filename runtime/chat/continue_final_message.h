#pragma once
// continue_final_message: transformers' apply_chat_template(continue_final_message=True).
// The conversation is rendered without a generation prompt, then the text is cut right
// after the final message's content, so the model continues that message (an assistant
// "prefill") instead of starting a new one. The template's end-of-turn tokens after it are
// dropped.

#include <string>

#include <boost/json.hpp>

#include "common/result.h"

namespace pagedserve {

// `rendered` cut after the last occurrence of the final message's content (whitespace
// around it stripped for the search, as transformers does). The final message's content is
// a string, or a list of parts of which the last one with a "text" key counts. An error
// (with transformers' message) when there is no text to continue or the template dropped
// part of it.
[[nodiscard]] result<std::string> cut_after_final_message(std::string rendered,
                                                          const boost::json::array& messages);

}  // namespace pagedserve
