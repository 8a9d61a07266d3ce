#include "runtime/tokenizer/detokenizer.h"

#include <algorithm>

#include "runtime/tokenizer/decoder.h"
#include "runtime/tokenizer/utf8.h"

namespace pagedserve {

namespace {

// How many context ids seed the window: enough for any decoder's left context.
constexpr std::size_t context_window = 6;

// Length of the longest common prefix of a and b that ends on a character boundary of b.
std::size_t common_prefix(std::string_view a, std::string_view b) {
  std::size_t n = 0;
  while (n < a.size() && n < b.size() && a[n] == b[n]) ++n;
  while (n > 0 && n < b.size() && (static_cast<unsigned char>(b[n]) & 0xC0) == 0x80) --n;
  return n;
}

// The part of new_text after what prefix_text already showed. new_text normally extends
// prefix_text; it does not only when the context ended inside a character, which prefix_text
// showed as U+FFFD: the new text then starts where the two part.
std::string after_prefix(const std::string& prefix_text, const std::string& new_text) {
  if (new_text.starts_with(prefix_text)) return new_text.substr(prefix_text.size());
  return new_text.substr(common_prefix(prefix_text, new_text));
}

}  // namespace

detokenizer::detokenizer(std::shared_ptr<const tokenizer> tok, bool skip_special_tokens,
                         std::span<const token_id> context)
    : tokenizer_(std::move(tok)),
      skip_special_tokens_(skip_special_tokens),
      hold_byte_runs_(tokenizer_->decoder_has_byte_fallback()) {
  const std::size_t seed = std::min(context.size(), context_window);
  ids_.assign(context.end() - static_cast<std::ptrdiff_t>(seed), context.end());
  read_offset_ = ids_.size();
}

std::string detokenizer::decode_range(std::size_t begin, std::size_t end) const {
  return tokenizer_->decode(std::span(ids_).subspan(begin, end - begin), skip_special_tokens_);
}

bool detokenizer::ends_in_open_byte_run() const {
  if (!hold_byte_runs_) return false;
  // Ids that decode() drops (skipped specials, unknown ids) do not end a run: look past them.
  for (auto it = ids_.rbegin(); it != ids_.rend(); ++it) {
    if (skip_special_tokens_ && tokenizer_->is_special(*it)) continue;
    const auto token = tokenizer_->id_to_token(*it);
    if (!token) continue;
    return byte_fallback_value(*token).has_value();
  }
  return false;
}

std::string detokenizer::push(token_id id) {
  ids_.push_back(id);
  if (ends_in_open_byte_run()) return {};
  const std::string prefix_text = decode_range(prefix_offset_, read_offset_);
  std::string new_text = decode_range(prefix_offset_, ids_.size());
  if (new_text.size() <= prefix_text.size() || new_text.ends_with(utf8::replacement_char)) {
    return {};
  }
  prefix_offset_ = read_offset_;
  read_offset_ = ids_.size();
  return after_prefix(prefix_text, new_text);
}

std::string detokenizer::flush() {
  const std::string prefix_text = decode_range(prefix_offset_, read_offset_);
  std::string new_text = decode_range(prefix_offset_, ids_.size());
  prefix_offset_ = read_offset_ = ids_.size();
  return after_prefix(prefix_text, new_text);
}

}  // namespace pagedserve
