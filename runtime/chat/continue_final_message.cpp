#include "runtime/chat/continue_final_message.h"

#include "runtime/chat/jinja/string_ops.h"

namespace pagedserve {
namespace {

error invalid(std::string message) {
  return make_error(error_code::invalid_argument, std::move(message));
}

// The text to continue: a string content, or the last part of a list that has "text".
result<std::string> final_text(const boost::json::array& messages) {
  const boost::json::object* last = messages.empty() ? nullptr : messages.back().if_object();
  const boost::json::value* content = last ? last->if_contains("content") : nullptr;
  if (content != nullptr && content->is_string()) return std::string(content->get_string());
  if (content != nullptr && content->is_array()) {
    const boost::json::array& parts = content->get_array();
    for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
      const boost::json::object* part = it->if_object();
      const boost::json::value* text = part ? part->if_contains("text") : nullptr;
      if (text != nullptr && text->is_string()) return std::string(text->get_string());
    }
  }
  return invalid(
      "continue_final_message is set but we could not find any text to continue in the final "
      "message!");
}

}  // namespace

// transformers (tokenization_utils_base.py) in bytes rather than code points: the search
// and both cuts land on the same characters, since every length is taken from a string
// that matches the rendered text at that place.
result<std::string> cut_after_final_message(std::string rendered,
                                            const boost::json::array& messages) {
  auto final_message = final_text(messages);
  if (!final_message) return final_message.err();
  const std::string& text = *final_message;
  const std::string stripped = jinja::py_strip(text, std::nullopt, true, true);
  const std::size_t loc = rendered.rfind(stripped);
  if (loc == std::string::npos) {
    return invalid(
        "continue_final_message is set but the final message does not appear in the chat after "
        "applying the chat template! This can happen if the chat template deletes portions of "
        "the final message. Please verify the chat template and final message in your chat to "
        "ensure they are compatible.");
  }
  const std::size_t lstripped_size = jinja::py_strip(text, std::nullopt, true, false).size();
  // The template kept the message's trailing whitespace (or it had none): cut after all of
  // it. Otherwise the template trimmed it: cut after the stripped text.
  const bool kept = rendered.compare(loc, lstripped_size, text) == 0;
  rendered.resize(loc + (kept ? lstripped_size : stripped.size()));
  return rendered;
}

}  // namespace pagedserve
