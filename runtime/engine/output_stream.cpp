#include "runtime/engine/output_stream.h"

#include <algorithm>
#include <utility>

namespace pagedserve {

namespace {

// The start of the UTF-8 character that holds byte `pos` (pos itself at a boundary or the
// end). Cuts move back to a boundary so that emitted text never ends inside a character;
// with valid stop strings a match or partial match already starts on one.
std::size_t char_start(std::string_view text, std::size_t pos) {
  while (pos > 0 && pos < text.size() && (static_cast<unsigned char>(text[pos]) & 0xC0) == 0x80) {
    --pos;
  }
  return pos;
}

}  // namespace

output_stream::output_stream(std::shared_ptr<const tokenizer> tok, text_options options,
                             std::span<const token_id> prompt)
    : unsearched_tokens_(options.min_tokens), include_stop_(options.include_stop_str_in_output) {
  if (tok == nullptr) return;  // ids only: no text, so no stop string can ever match
  detokenizer_.emplace(std::move(tok), options.skip_special_tokens, prompt);
  // An empty stop string would match before any text: it is treated as absent.
  std::erase_if(options.stop, [](const std::string& s) { return s.empty(); });
  stop_strings_ = std::move(options.stop);
}

// Scans every start position of `text` (the held text plus the new piece: bounded by the
// longest stop string plus one piece) from the left. The first position where some stop
// string matches in full ends the text there (the earliest match wins, even over a shorter
// stop string that was complete sooner but starts later). The first position where the text
// runs out while still agreeing with a stop string is held back: a match starting there
// would be earlier than any later one, so nothing after it is decided yet. At the end of the
// stream partial matches can no longer complete and only full ones count.
output_stream::scan_result output_stream::scan(std::string_view text, bool at_end) const {
  for (std::size_t pos = 0; pos < text.size(); ++pos) {
    const std::string_view tail = text.substr(pos);
    std::optional<std::size_t> match;
    bool partial = false;
    for (std::size_t i = 0; i < stop_strings_.size(); ++i) {
      const std::string& stop = stop_strings_[i];
      if (tail.starts_with(stop)) {
        // Several matches at one start cut at the same place: report the shortest.
        if (!match || stop.size() < stop_strings_[*match].size()) match = i;
      } else if (!at_end && tail.size() < stop.size() && stop.starts_with(tail)) {
        partial = true;
      }
    }
    if (match || partial) return {char_start(text, pos), match};
  }
  return {text.size(), std::nullopt};
}

std::string output_stream::release(std::string_view piece, bool at_end,
                                   std::optional<std::string>& stop_string) {
  held_ += piece;
  const scan_result found = scan(held_, at_end);
  std::string out = held_.substr(0, found.cut);
  if (found.match) {
    stopped_ = true;
    stop_string = stop_strings_[*found.match];
    if (include_stop_) out += *stop_string;
    held_.clear();
  } else {
    held_.erase(0, found.cut);
  }
  return out;
}

output_stream::delta output_stream::push(token_id id) {
  if (stopped_) return {};
  delta out;
  out.token_ids.push_back(id);
  if (!detokenizer_) return out;
  std::string piece = detokenizer_->push(id);
  if (stop_strings_.empty()) {
    out.text = std::move(piece);
    return out;
  }
  if (unsearched_tokens_ > 0) {  // min_tokens: the text so far is final, unsearched
    --unsearched_tokens_;
    out.text = std::exchange(held_, {}) + piece;
    return out;
  }
  // Only the held text and the new piece are scanned: by the invariant on held_, any
  // occurrence that is still undecided or new starts in there.
  if (piece.empty()) return out;
  out.text = release(piece, false, out.stop_string);
  return out;
}

std::string output_stream::flush() {
  if (stopped_ || !detokenizer_) return {};
  const std::string piece = detokenizer_->flush();
  if (stop_strings_.empty()) return piece;
  // A stop string completed only by the flushed text (a stream ending inside a held
  // character or byte run) still cuts the text; flush() has no way to name it.
  std::optional<std::string> ignored;
  return release(piece, true, ignored);
}

bool output_stream::stopped() const { return stopped_; }

}  // namespace pagedserve
