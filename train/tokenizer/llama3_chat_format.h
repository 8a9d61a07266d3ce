#pragma once
// The special tokens and chat template of the demo tokenizer, as Llama 3 Instruct has them:
// the specials take the last ids of the vocabulary, in this order.
//
//   <|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nHello<|eot_id|>
//   <|start_header_id|>assistant<|end_header_id|>\n\n
//
// (one line, broken here after <|eot_id|>). BOS starts every sequence (the post-processor adds
// it when encoding with special tokens, the template when rendering a chat); <|eot_id|> ends a
// turn and is the EOS of tokenizer_config.json; <|end_of_text|> ends a document.

#include <array>
#include <string_view>

namespace pagedserve::train {

inline constexpr std::string_view bos_token = "<|begin_of_text|>";
inline constexpr std::string_view end_of_text_token = "<|end_of_text|>";
inline constexpr std::string_view eot_token = "<|eot_id|>";

inline constexpr std::array<std::string_view, 5> special_token_names = {
    bos_token, end_of_text_token, "<|start_header_id|>", "<|end_header_id|>", eot_token};

// Each message's content is trimmed, as Llama 3's template does.
inline constexpr std::string_view chat_template =
    "{{ bos_token }}"
    "{% for message in messages %}"
    "{{ '<|start_header_id|>' + message['role'] + '<|end_header_id|>\\n\\n' + "
    "message['content'] | trim + '<|eot_id|>' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}"
    "{{ '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}"
    "{% endif %}";

}  // namespace pagedserve::train
