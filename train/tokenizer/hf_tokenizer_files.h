#pragma once
// The trained vocabulary as Hugging Face tokenizer files, laid out as Llama 3's:
//   ids 0-255                  the bytes 0x00-0xFF, spelled in the GPT-2 byte-level alphabet
//   ids 256 .. n-1             the merged tokens, in the order training made them
//   ids n .. n+4               the special tokens (llama3_chat_format.h), last
// tokenizer.json: BPE model (merges as ["left", "right"] pairs), no normalizer, the Llama 3
// pre-tokenizer, post-processor ByteLevel + TemplateProcessing (BOS first), decoder
// ByteLevel. tokenizer_config.json: BOS/EOS names, the added tokens, the chat template.

#include <cstdint>
#include <filesystem>

#include <boost/json/value.hpp>

#include "common/result.h"
#include "train/tokenizer/bpe_trainer.h"

namespace pagedserve::train {

[[nodiscard]] boost::json::value tokenizer_json(const bpe_vocabulary& vocab);
// model_max_length: the longest sequence the model takes (its max_position_embeddings).
[[nodiscard]] boost::json::value tokenizer_config_json(const bpe_vocabulary& vocab,
                                                       std::int64_t model_max_length);

// Writes dir/tokenizer.json and dir/tokenizer_config.json (creating dir).
[[nodiscard]] status write_tokenizer_files(const std::filesystem::path& dir,
                                           const bpe_vocabulary& vocab,
                                           std::int64_t model_max_length);

}  // namespace pagedserve::train
