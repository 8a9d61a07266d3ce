#pragma once
// The built-in demo model's tokenizer: byte-level, no download. Ids 0-15 are special tokens
// (0 <|pad|>, 1 <|begin_of_text|> = BOS, 2 <|end_of_text|> = EOS, 3 <|im_start|>,
// 4 <|im_end|>, 5-15 reserved), ids 16-271 are the bytes 0x00-0xFF, ids 272 and up (to the
// demo model's vocab_size) are reserved special tokens that decode to nothing. encode() adds
// BOS when add_special_tokens is set and recognizes the special tokens' text; its chat
// template is ChatML (<|im_start|>role\ncontent<|im_end|>\n).

#include <memory>

#include "runtime/tokenizer/tokenizer.h"

namespace pagedserve {

[[nodiscard]] std::shared_ptr<const tokenizer> make_demo_tokenizer();

}  // namespace pagedserve
