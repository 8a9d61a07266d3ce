#pragma once
// hf_tokenizer: the tokenizer implementation for HF tokenizer.json files with a BPE model.
// encode: cut at raw added tokens -> normalize each remaining piece -> cut at normalized added
// tokens -> pre-tokenize -> BPE each pre-token -> post-process. decode: ids -> token strings
// -> decoder chain -> concatenation.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runtime/tokenizer/added_vocabulary.h"
#include "runtime/tokenizer/bpe_model.h"
#include "runtime/tokenizer/decoder.h"
#include "runtime/tokenizer/normalizer.h"
#include "runtime/tokenizer/post_processor.h"
#include "runtime/tokenizer/pre_tokenizer.h"
#include "runtime/tokenizer/tokenizer.h"

namespace pagedserve {

struct hf_tokenizer_parts {
  std::unique_ptr<normalizer> norm;
  std::unique_ptr<pre_tokenizer> pre;
  std::unique_ptr<bpe_model> model;
  std::unique_ptr<post_processor> post;
  std::unique_ptr<decoder> dec;
  added_vocabulary added;
  special_tokens specials;
  std::optional<std::string> chat_template;
};

class hf_tokenizer final : public tokenizer {
 public:
  explicit hf_tokenizer(hf_tokenizer_parts parts);

  [[nodiscard]] std::vector<token_id> encode(std::string_view text,
                                             bool add_special_tokens) const override;
  [[nodiscard]] std::string decode(std::span<const token_id> ids,
                                   bool skip_special_tokens) const override;

  [[nodiscard]] std::size_t vocab_size() const override { return vocab_size_; }
  [[nodiscard]] std::optional<token_id> token_to_id(std::string_view token) const override;
  [[nodiscard]] std::optional<std::string> id_to_token(token_id id) const override;
  [[nodiscard]] bool is_special(token_id id) const override;
  [[nodiscard]] std::string token_bytes(token_id id) const override;
  [[nodiscard]] const special_tokens& specials() const override { return parts_.specials; }
  [[nodiscard]] const std::optional<std::string>& chat_template() const override {
    return parts_.chat_template;
  }
  [[nodiscard]] bool decoder_has_byte_fallback() const override {
    return parts_.dec && parts_.dec->has_byte_fallback();
  }

 private:
  // Normalizes, pre-tokenizes and BPE-encodes one piece of text between raw added tokens.
  void encode_piece(std::string piece, bool at_origin, std::vector<token_id>& ids) const;
  void encode_words(std::string piece, bool at_origin, std::vector<token_id>& ids) const;

  hf_tokenizer_parts parts_;
  std::size_t vocab_size_ = 0;
};

}  // namespace pagedserve
