#include "runtime/tokenizer/demo_tokenizer.h"

#include <array>
#include <charconv>
#include <string>
#include <string_view>

#include "runtime/tokenizer/byte_level.h"
#include "runtime/tokenizer/utf8.h"

namespace pagedserve {
namespace {

// Layout of the vocabulary (see the header):
//   [0, 16)            named special tokens; their text is recognized by encode()
//   [16, 272)          byte b is id 16 + b
//   [272, vocab_size)  "<|unused_N|>": special, never produced by encode(), decode to nothing
// vocab_size equals demo_model_config().vocab_size (runtime/model; a test checks they agree,
// the tokenizer library does not depend on the model library).
constexpr token_id num_named = 16;
constexpr token_id first_byte = num_named;
constexpr token_id end_bytes = first_byte + 256;
constexpr std::size_t demo_vocab_size = 512;

constexpr token_id bos_id = 1;
constexpr token_id eos_id = 2;

const std::array<std::string, num_named>& named_tokens() {
  static const std::array<std::string, num_named> names = [] {
    std::array<std::string, num_named> n;
    n[0] = "<|pad|>";
    n[bos_id] = "<|begin_of_text|>";
    n[eos_id] = "<|end_of_text|>";
    n[3] = "<|im_start|>";
    n[4] = "<|im_end|>";
    for (std::size_t i = 5; i < n.size(); ++i) n[i] = "<|reserved_" + std::to_string(i) + "|>";
    return n;
  }();
  return names;
}

constexpr std::string_view unused_prefix = "<|unused_";
constexpr std::string_view special_suffix = "|>";

// The named special token whose text starts text[pos], if any (names never prefix each other:
// each ends in "|>" and contains no other "|>").
std::optional<token_id> special_at(std::string_view text, std::size_t pos) {
  if (text.compare(pos, 2, "<|") != 0) return std::nullopt;
  for (token_id id = 0; id < num_named; ++id) {
    const std::string& name = named_tokens()[static_cast<std::size_t>(id)];
    if (text.compare(pos, name.size(), name) == 0) return id;
  }
  return std::nullopt;
}

// ChatML, the same conversation format as chat_template::default_source().
const std::optional<std::string>& chatml_template() {
  static const std::optional<std::string> source =
      "{% for message in messages %}"
      "{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>\\n' }}"
      "{% endfor %}"
      "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";
  return source;
}

class demo_tokenizer final : public tokenizer {
 public:
  demo_tokenizer() {
    specials_.bos_token = named_tokens()[bos_id];
    specials_.eos_token = named_tokens()[eos_id];
    specials_.pad_token = named_tokens()[0];
  }

  [[nodiscard]] std::vector<token_id> encode(std::string_view text,
                                             bool add_special_tokens) const override {
    std::vector<token_id> ids;
    ids.reserve(text.size() + 1);
    if (add_special_tokens) ids.push_back(bos_id);
    std::size_t pos = 0;
    while (pos < text.size()) {
      if (const auto special = special_at(text, pos)) {
        ids.push_back(*special);
        pos += named_tokens()[static_cast<std::size_t>(*special)].size();
        continue;
      }
      ids.push_back(first_byte + static_cast<unsigned char>(text[pos]));
      ++pos;
    }
    return ids;
  }

  // Bytes and special texts concatenated, then made valid UTF-8 the way every tokenizer here
  // does (each maximal invalid subpart becomes one U+FFFD).
  [[nodiscard]] std::string decode(std::span<const token_id> ids,
                                   bool skip_special_tokens) const override {
    std::string bytes;
    bytes.reserve(ids.size());
    for (const token_id id : ids) {
      if (id >= first_byte && id < end_bytes) {
        bytes.push_back(static_cast<char>(id - first_byte));
      } else if (id >= 0 && id < num_named && !skip_special_tokens) {
        bytes += named_tokens()[static_cast<std::size_t>(id)];
      }
    }
    return utf8::is_valid(bytes) ? bytes : utf8::sanitize(bytes);
  }

  [[nodiscard]] std::size_t vocab_size() const override { return demo_vocab_size; }

  [[nodiscard]] std::string token_bytes(token_id id) const override {
    if (id < first_byte || id >= end_bytes) return {};
    return std::string(1, static_cast<char>(id - first_byte));
  }

  [[nodiscard]] std::optional<token_id> token_to_id(std::string_view token) const override {
    for (token_id id = 0; id < num_named; ++id) {
      if (token == named_tokens()[static_cast<std::size_t>(id)]) return id;
    }
    if (auto id = unused_id(token)) return id;
    // Bytes are named by the GPT-2 byte-level alphabet (one printable character each).
    std::string byte;
    if (byte_level::decode_token(token, byte) && byte.size() == 1) {
      return first_byte + static_cast<unsigned char>(byte[0]);
    }
    return std::nullopt;
  }

  [[nodiscard]] std::optional<std::string> id_to_token(token_id id) const override {
    if (id < 0 || static_cast<std::size_t>(id) >= demo_vocab_size) return std::nullopt;
    if (id < num_named) return named_tokens()[static_cast<std::size_t>(id)];
    if (id < end_bytes) {
      return std::string(byte_level::char_of_byte(static_cast<unsigned char>(id - first_byte)));
    }
    return std::string(unused_prefix) + std::to_string(id) + std::string(special_suffix);
  }

  [[nodiscard]] bool is_special(token_id id) const override {
    return (id >= 0 && id < num_named) ||
           (id >= end_bytes && static_cast<std::size_t>(id) < demo_vocab_size);
  }

  [[nodiscard]] const special_tokens& specials() const override { return specials_; }
  [[nodiscard]] const std::optional<std::string>& chat_template() const override {
    return chatml_template();
  }

 private:
  // "<|unused_N|>" with N in [272, vocab_size).
  static std::optional<token_id> unused_id(std::string_view token) {
    if (!token.starts_with(unused_prefix) || !token.ends_with(special_suffix)) return std::nullopt;
    const std::string_view digits = token.substr(
        unused_prefix.size(), token.size() - unused_prefix.size() - special_suffix.size());
    token_id id = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), id);
    if (ec != std::errc{} || end != digits.data() + digits.size() || digits.starts_with('0')) {
      return std::nullopt;
    }
    if (id < end_bytes || static_cast<std::size_t>(id) >= demo_vocab_size) return std::nullopt;
    return id;
  }

  special_tokens specials_;
};

}  // namespace

std::shared_ptr<const tokenizer> make_demo_tokenizer() {
  static const std::shared_ptr<const tokenizer> instance = std::make_shared<demo_tokenizer>();
  return instance;
}

}  // namespace pagedserve
