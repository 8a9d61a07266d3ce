#pragma once
// tokenizer: a HF tokenizer.json (+ tokenizer_config.json) loaded into memory; encodes and
// decodes exactly as HF `tokenizers` does. Immutable after load and safe to share between
// threads.

#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "common/types.h"

namespace pagedserve {

// Special tokens named in tokenizer_config.json (bos_token, eos_token, ...).
struct special_tokens {
  std::optional<std::string> bos_token;
  std::optional<std::string> eos_token;
  std::optional<std::string> pad_token;
  std::optional<std::string> unk_token;
};

class tokenizer {
 public:
  // Loads <dir>/tokenizer.json and, when present, <dir>/tokenizer_config.json. Anything the
  // implementation does not support is an error naming the component.
  [[nodiscard]] static result<std::shared_ptr<const tokenizer>> load(
      const std::filesystem::path& dir);

  virtual ~tokenizer() = default;

  // add_special_tokens: apply the post-processor (e.g. prepend BOS) as HF does.
  [[nodiscard]] virtual std::vector<token_id> encode(std::string_view text,
                                                     bool add_special_tokens) const = 0;
  [[nodiscard]] virtual std::string decode(std::span<const token_id> ids,
                                           bool skip_special_tokens) const = 0;

  [[nodiscard]] virtual std::size_t vocab_size() const = 0;  // including added tokens
  [[nodiscard]] virtual std::optional<token_id> token_to_id(std::string_view token) const = 0;
  [[nodiscard]] virtual std::optional<std::string> id_to_token(token_id id) const = 0;
  [[nodiscard]] virtual bool is_special(token_id id) const = 0;
  // The bytes token `id` adds to a text it does not start (raw: possibly half a UTF-8
  // character); empty for special tokens. The grammar engine matches tokens by these.
  [[nodiscard]] virtual std::string token_bytes(token_id id) const = 0;

  [[nodiscard]] virtual const special_tokens& specials() const = 0;
  // The Jinja chat_template from tokenizer_config.json, when it has one.
  [[nodiscard]] virtual const std::optional<std::string>& chat_template() const = 0;

  // True when the decoder turns "<0xNN>" byte tokens back into bytes (SentencePiece-style
  // byte_fallback): a streaming detokenizer then holds text while such a run is open, because
  // an invalid run decodes to U+FFFD per byte, including bytes already seen.
  [[nodiscard]] virtual bool decoder_has_byte_fallback() const { return false; }
};

}  // namespace pagedserve
