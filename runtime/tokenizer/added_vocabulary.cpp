#include "runtime/tokenizer/added_vocabulary.h"

#include <utf8proc.h>
#include <boost/json.hpp>

#include "runtime/tokenizer/json_util.h"
#include "runtime/tokenizer/normalizer.h"
#include "runtime/tokenizer/utf8.h"

namespace pagedserve {

namespace {

// Rust's char::is_alphanumeric (plus '_'), as regex-syntax's is_word_character.
bool is_word_char(char32_t cp) {
  if (cp == U'_') return true;
  switch (utf8proc_category(static_cast<utf8proc_int32_t>(cp))) {
    case UTF8PROC_CATEGORY_LU:
    case UTF8PROC_CATEGORY_LL:
    case UTF8PROC_CATEGORY_LT:
    case UTF8PROC_CATEGORY_LM:
    case UTF8PROC_CATEGORY_LO:
    case UTF8PROC_CATEGORY_ND:
    case UTF8PROC_CATEGORY_NL:
    case UTF8PROC_CATEGORY_NO:
      return true;
    default:
      return false;
  }
}

bool is_whitespace(char32_t cp) {
  if (cp == U' ' || (cp >= 0x09 && cp <= 0x0D)) return true;
  if (cp < 0x80) return false;
  if (cp == 0x85) return true;
  const auto cat = utf8proc_category(static_cast<utf8proc_int32_t>(cp));
  return cat == UTF8PROC_CATEGORY_ZS || cat == UTF8PROC_CATEGORY_ZL || cat == UTF8PROC_CATEGORY_ZP;
}

// The code point ending just before pos (valid text).
char32_t code_point_before(std::string_view text, std::size_t pos, std::size_t& start) {
  start = pos - 1;
  while (start > 0 && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80) --start;
  std::size_t p = start;
  return utf8::next_code_point(text, p);
}

}  // namespace

result<added_vocabulary> added_vocabulary::parse(const boost::json::array& tokens,
                                                 const normalizer* norm, std::int64_t id_limit) {
  added_vocabulary vocab;
  for (const auto& item : tokens) {
    if (!item.is_object()) {
      return make_error(error_code::corrupt_data, "added token is not an object");
    }
    const auto& obj = item.get_object();
    added_token t;
    t.content = json_util::get_string(obj, "content").value_or("");
    const auto* id = obj.if_contains("id");
    if (id == nullptr || !id->is_int64() || t.content.empty()) {
      return make_error(error_code::corrupt_data, "added token without id/content");
    }
    if (id->get_int64() < 0 || id->get_int64() >= id_limit) {
      return make_error(error_code::corrupt_data,
                        "added_tokens: token '" + t.content.substr(0, 64) + "' has id " +
                            std::to_string(id->get_int64()) + ", outside [0, " +
                            std::to_string(id_limit) + ")");
    }
    t.id = static_cast<token_id>(id->get_int64());
    t.special = json_util::get_bool(obj, "special", false);
    t.lstrip = json_util::get_bool(obj, "lstrip", false);
    t.rstrip = json_util::get_bool(obj, "rstrip", false);
    t.single_word = json_util::get_bool(obj, "single_word", false);
    t.normalized = json_util::get_bool(obj, "normalized", !t.special);
    vocab.by_id_.insert_or_assign(t.id, vocab.tokens_.size());
    vocab.tokens_.push_back(std::move(t));
  }
  for (std::size_t i = 0; i < vocab.tokens_.size(); ++i) {
    const added_token& t = vocab.tokens_[i];
    std::string text = t.content;
    // HF matches normalized added tokens in their normalized form.
    if (t.normalized && norm != nullptr) norm->normalize(text);
    if (!text.empty()) add_pattern(vocab.matchers_[t.normalized ? 1 : 0], text, i);
  }
  return vocab;
}

void added_vocabulary::add_pattern(matcher& m, std::string_view text, std::size_t index) {
  m.starts[static_cast<unsigned char>(text[0])] = true;
  std::uint32_t node = 0;
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    std::optional<std::uint32_t> next;
    for (const auto& [b, child] : m.nodes[node].children) {
      if (b == byte) next = child;
    }
    if (!next) {
      next = static_cast<std::uint32_t>(m.nodes.size());
      m.nodes[node].children.emplace_back(byte, *next);
      m.nodes.emplace_back();
    }
    node = *next;
  }
  // Two tokens with the same text: the first one wins (it was added first).
  if (!m.nodes[node].token) m.nodes[node].token = index;
}

const added_token* added_vocabulary::find(token_id id) const {
  const auto it = by_id_.find(id);
  return it == by_id_.end() ? nullptr : &tokens_[it->second];
}

std::optional<token_id> added_vocabulary::token_to_id(std::string_view content) const {
  for (const added_token& t : tokens_) {
    if (t.content == content) return t.id;
  }
  return std::nullopt;
}

std::optional<std::pair<std::size_t, std::size_t>> added_vocabulary::match_at(const matcher& m,
                                                                              std::string_view text,
                                                                              std::size_t pos) {
  std::optional<std::pair<std::size_t, std::size_t>> longest;
  if (!m.starts[static_cast<unsigned char>(text[pos])]) return longest;
  std::uint32_t node = 0;
  for (std::size_t i = pos; i < text.size(); ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    std::optional<std::uint32_t> next;
    for (const auto& [b, child] : m.nodes[node].children) {
      if (b == byte) {
        next = child;
        break;
      }
    }
    if (!next) break;
    node = *next;
    if (m.nodes[node].token) longest = std::pair{i + 1, *m.nodes[node].token};
  }
  return longest;
}

void added_vocabulary::split(std::string_view text, bool normalized,
                             std::vector<text_segment>& out) const {
  const matcher& m = matchers_[normalized ? 1 : 0];
  std::size_t start_offset = 0;  // end of the last emitted segment
  std::size_t pos = 0;
  while (pos < text.size() && !m.empty()) {
    const auto hit = match_at(m, text, pos);
    if (!hit) {
      ++pos;
      continue;
    }
    const added_token& t = tokens_[hit->second];
    std::size_t start = pos;
    std::size_t stop = hit->first;
    pos = stop;  // matches never overlap, even when one is rejected below
    if (t.single_word) {
      std::size_t unused = 0;
      std::size_t after = stop;
      const bool start_ok = start == 0 || !is_word_char(code_point_before(text, start, unused));
      const bool stop_ok = stop == text.size() || !is_word_char(utf8::next_code_point(text, after));
      if (!start_ok || !stop_ok) continue;
    }
    if (start < start_offset) continue;  // swallowed by the previous token's rstrip
    if (t.lstrip) {
      while (start > start_offset) {
        std::size_t before = 0;
        if (!is_whitespace(code_point_before(text, start, before))) break;
        start = before;
      }
    }
    if (t.rstrip) {
      while (stop < text.size()) {
        std::size_t next = stop;
        if (!is_whitespace(utf8::next_code_point(text, next))) break;
        stop = next;
      }
      pos = stop;
    }
    if (start_offset < start) out.push_back({start_offset, start, std::nullopt});
    out.push_back({start, stop, t.id});
    start_offset = stop;
  }
  if (start_offset < text.size()) out.push_back({start_offset, text.size(), std::nullopt});
}

}  // namespace pagedserve
