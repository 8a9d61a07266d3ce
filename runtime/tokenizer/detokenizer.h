#pragma once
// detokenizer: turns a stream of token ids into text pieces, one id at a time. The
// concatenation of every piece (plus the final flush) equals tokenizer::decode of all the ids,
// and every piece is valid UTF-8 on its own.
//
// Technique (as vLLM/TGI): keep a window ids[prefix_offset, size); decode ids[prefix_offset,
// read_offset) (text already emitted) and the whole window; when the window's text extends
// the emitted text and does not end in U+FFFD (an incomplete character), emit the difference
// and slide the window. Decoding a window rather than one token keeps context-dependent
// decoders exact (SentencePiece's leading-space Strip and Metaspace act on the first token of
// the window, which both decodes share). With a byte-fallback decoder nothing is emitted
// while the last token is a "<0xNN>" byte, since the run is only decoded once it is complete.

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "runtime/tokenizer/tokenizer.h"

namespace pagedserve {

class detokenizer {
 public:
  // context: ids that precede the stream and were already shown (e.g. the prompt); a few of
  // them seed the window so the first piece decodes in context. They are never emitted.
  explicit detokenizer(std::shared_ptr<const tokenizer> tok, bool skip_special_tokens = false,
                       std::span<const token_id> context = {});

  // Appends id and returns the text that became stable (often empty).
  [[nodiscard]] std::string push(token_id id);
  // Returns everything still held back; call once after the last id.
  [[nodiscard]] std::string flush();

 private:
  [[nodiscard]] std::string decode_range(std::size_t begin, std::size_t end) const;
  [[nodiscard]] bool ends_in_open_byte_run() const;

  std::shared_ptr<const tokenizer> tokenizer_;
  bool skip_special_tokens_;
  bool hold_byte_runs_;
  std::vector<token_id> ids_;
  std::size_t prefix_offset_ = 0;  // start of the decode window
  std::size_t read_offset_ = 0;    // ids before this are emitted
};

}  // namespace pagedserve
