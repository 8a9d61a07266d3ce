#include "runtime/tokenizer/hf_tokenizer.h"

#include "runtime/tokenizer/utf8.h"

namespace pagedserve {

hf_tokenizer::hf_tokenizer(hf_tokenizer_parts parts) : parts_(std::move(parts)) {
  // As HF get_vocab(with_added_tokens): model strings and added contents, counted once.
  vocab_size_ = parts_.model->vocab_size();
  for (const added_token& t : parts_.added.tokens()) {
    if (!parts_.model->token_to_id(t.content)) ++vocab_size_;
  }
}

std::vector<token_id> hf_tokenizer::encode(std::string_view text, bool add_special_tokens) const {
  // HF takes a Rust &str, so its input is always valid UTF-8; ours replaces each invalid
  // subpart with U+FFFD first (as from_utf8_lossy would).
  std::string sanitized;
  if (!utf8::is_valid(text)) {
    sanitized = utf8::sanitize(text);
    text = sanitized;
  }
  std::vector<token_id> ids;
  ids.reserve(text.size() / 3 + 4);
  std::vector<text_segment> segments;
  parts_.added.split(text, false, segments);
  for (const text_segment& s : segments) {
    if (s.id) {
      ids.push_back(*s.id);
    } else {
      encode_piece(std::string(text.substr(s.begin, s.end - s.begin)), s.begin == 0, ids);
    }
  }
  if (add_special_tokens && parts_.post) parts_.post->process(ids);
  return ids;
}

void hf_tokenizer::encode_piece(std::string piece, bool at_origin,
                                std::vector<token_id>& ids) const {
  if (parts_.norm) parts_.norm->normalize(piece);
  if (!parts_.added.has_normalized()) {
    encode_words(std::move(piece), at_origin, ids);
    return;
  }
  std::vector<text_segment> segments;
  parts_.added.split(piece, true, segments);
  for (const text_segment& s : segments) {
    if (s.id) {
      ids.push_back(*s.id);
    } else {
      encode_words(piece.substr(s.begin, s.end - s.begin), at_origin && s.begin == 0, ids);
    }
  }
}

void hf_tokenizer::encode_words(std::string piece, bool at_origin,
                                std::vector<token_id>& ids) const {
  if (piece.empty()) return;
  if (!parts_.pre) {
    parts_.model->tokenize(piece, ids);
    return;
  }
  std::vector<pre_token> words;
  std::vector<pre_token> scratch;
  words.push_back({std::move(piece), at_origin});
  parts_.pre->pre_tokenize(words, scratch);
  for (const pre_token& w : words) parts_.model->tokenize(w.text, ids);
}

std::string hf_tokenizer::decode(std::span<const token_id> ids, bool skip_special_tokens) const {
  std::vector<std::string> tokens;
  tokens.reserve(ids.size());
  for (const token_id id : ids) {
    if (const added_token* t = parts_.added.find(id)) {
      if (!(skip_special_tokens && t->special)) tokens.push_back(t->content);
    } else if (const auto token = parts_.model->id_to_token(id)) {
      tokens.emplace_back(*token);
    }
  }
  std::string out;
  if (!parts_.dec) {
    for (std::size_t i = 0; i < tokens.size(); ++i) {
      if (i > 0) out += ' ';
      out += tokens[i];
    }
    return out;
  }
  parts_.dec->decode_chain(tokens);
  for (const std::string& t : tokens) out += t;
  return out;
}

std::optional<token_id> hf_tokenizer::token_to_id(std::string_view token) const {
  if (auto id = parts_.added.token_to_id(token)) return id;
  return parts_.model->token_to_id(token);
}

std::optional<std::string> hf_tokenizer::id_to_token(token_id id) const {
  if (const added_token* t = parts_.added.find(id)) return t->content;
  if (const auto token = parts_.model->id_to_token(id)) return std::string(*token);
  return std::nullopt;
}

// Added tokens keep their text (HF emits them as they are); the model's own tokens go
// through the decoder's per-token steps.
std::string hf_tokenizer::token_bytes(token_id id) const {
  if (const added_token* t = parts_.added.find(id)) return t->special ? std::string() : t->content;
  const auto token = parts_.model->id_to_token(id);
  if (!token) return {};
  std::string bytes(*token);
  if (parts_.dec) parts_.dec->to_raw_bytes(bytes);
  return bytes;
}

bool hf_tokenizer::is_special(token_id id) const {
  const added_token* t = parts_.added.find(id);
  return t != nullptr && t->special;
}

}  // namespace pagedserve
