#pragma once
// The pre-tokenizer of Llama 3's tokenizer.json: a Split on its regex (each match a piece of
// its own), then ByteLevel with neither a prefix space nor the GPT-2 regex. The trainer cuts
// its text with the runtime pre-tokenizer built from this very JSON, so training and encoding
// cut text the same way.

#include <memory>
#include <string_view>

#include <boost/json/value.hpp>

#include "common/result.h"
#include "runtime/tokenizer/pre_tokenizer.h"

namespace pagedserve::train {

// Contractions, words with one leading non-letter, numbers of up to three digits, runs of
// punctuation (with a leading space and trailing newlines), newlines, whitespace.
inline constexpr std::string_view llama3_split_pattern =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

// The "pre_tokenizer" object of tokenizer.json.
[[nodiscard]] boost::json::value llama3_pre_tokenizer_json();

// The runtime pre-tokenizer for that JSON: pieces come out in the byte-level alphabet.
[[nodiscard]] result<std::unique_ptr<pre_tokenizer>> make_llama3_pre_tokenizer();

}  // namespace pagedserve::train
