#pragma once
// chat_template: a model's Jinja chat template, compiled once per model, rendering a
// conversation exactly as HF transformers' apply_chat_template(tokenize=False) does.
// Immutable after compile and safe to share between threads.

#include <optional>
#include <string>
#include <vector>

#include <boost/json.hpp>

#include "common/result.h"
#include "common/types.h"
#include "runtime/chat/jinja/builtins.h"
#include "runtime/chat/jinja/template.h"
#include "runtime/tokenizer/tokenizer.h"

namespace pagedserve {

// One apply_chat_template call. Messages stay generic JSON so every field (content parts,
// tool_calls, name, tool_call_id, reasoning_content, ...) reaches the template unchanged.
struct chat_request {
  boost::json::array messages;
  std::optional<boost::json::array> tools;      // absent: the template sees tools=None
  std::optional<boost::json::array> documents;  // absent: documents=None
  bool add_generation_prompt = false;
  // Render the final message open, for the model to continue it (transformers'
  // continue_final_message, see continue_final_message.h); excludes add_generation_prompt.
  bool continue_final_message = false;
  special_tokens specials;    // bos_token, eos_token, ... when the tokenizer defines them
  boost::json::object extra;  // further template kwargs (enable_thinking, ...); they win
                              // over the special tokens, as in transformers
};

// Builds a request from {"messages": [...], "add_generation_prompt": b,
// "continue_final_message": b, "tools": [...], "documents": [...], <any other key>: template
// kwarg}. Specials are left empty.
[[nodiscard]] result<chat_request> parse_chat_request(const boost::json::object& object);

class chat_template {
 public:
  [[nodiscard]] static result<chat_template> compile(std::string source);
  // The tokenizer's own template, or default_source() when it has none.
  [[nodiscard]] static result<chat_template> for_tokenizer(const tokenizer& tok);
  // ChatML, used for tokenizers without a template (see docs/chat-templates.md).
  [[nodiscard]] static const std::string& default_source();

  [[nodiscard]] result<std::string> render(const chat_request& request) const;
  [[nodiscard]] const std::string& source() const { return source_; }

  // Resource limits of each render (see docs/chat-templates.md for the defaults).
  void set_limits(const jinja::render_limits& limits) { limits_ = limits; }
  [[nodiscard]] const jinja::render_limits& limits() const { return limits_; }

 private:
  chat_template(std::string source, jinja::compiled_template program)
      : source_(std::move(source)), program_(std::move(program)) {}

  std::string source_;
  jinja::compiled_template program_;
  jinja::render_limits limits_;
};

// The rendered text's token ids: transformers encodes it with add_special_tokens=False (the
// template already contains BOS and friends).
[[nodiscard]] std::vector<token_id> encode_chat(const tokenizer& tok, const std::string& text);

}  // namespace pagedserve
