#pragma once
// token_stream: the training text as one stream of token ids, and the windows a step trains
// on. Every line of a text file is a document: <|begin_of_text|> ids <|end_of_text|>. Every
// line of a chat file ({"messages": [...]}) is rendered with the tokenizer's chat template
// (which brings its own BOS and end-of-turn markers). Documents follow each other; a window
// may span two, as in GPT-2's training.

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "common/result.h"
#include "runtime/tokenizer/tokenizer.h"
#include "train/model/seeded_random.h"

namespace pagedserve::train {

struct token_stream {
  std::vector<std::int32_t> ids;
  std::int64_t num_documents = 0;
};

// Appends each line of `file`; `is_chat` selects the chat form. Errors name the file and line.
[[nodiscard]] status append_text_file(const tokenizer& tok, const std::filesystem::path& file,
                                      token_stream& stream);
[[nodiscard]] status append_chat_file(const tokenizer& tok, const std::filesystem::path& file,
                                      token_stream& stream);

// A batch of windows: inputs [batch * seq_len] and the next token of each as targets.
struct window_batch {
  std::vector<std::int32_t> inputs;
  std::vector<std::int32_t> targets;
};

// `batch` windows at random offsets drawn from `random` (the stream must be longer than
// seq_len + 1).
[[nodiscard]] window_batch random_windows(const token_stream& stream, std::int64_t batch,
                                          std::int64_t seq_len, seeded_random& random);
// The windows that tile the stream from its start, `batch` at a time: batch number `index`
// (for held-out evaluation over the same tokens every time); fewer windows at the end.
[[nodiscard]] std::int64_t num_tiling_windows(const token_stream& stream, std::int64_t seq_len);
[[nodiscard]] window_batch tiling_windows(const token_stream& stream, std::int64_t first,
                                          std::int64_t count, std::int64_t seq_len);

}  // namespace pagedserve::train
