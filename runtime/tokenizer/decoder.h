#pragma once
// Decoders of tokenizer.json ("decoder"): ByteLevel, Replace, ByteFallback, Fuse, Strip,
// Metaspace and Sequence. Like HF's decode_chain each step maps the list of token strings to a
// new list; the decoded text is the concatenation of the final list.

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json/fwd.hpp>

#include "common/result.h"

namespace pagedserve {

class decoder {
 public:
  virtual ~decoder() = default;
  virtual void decode_chain(std::vector<std::string>& tokens) const = 0;
  // True for ByteFallback: a trailing run of "<0xNN>" tokens may still change how the run
  // decodes (an invalid run turns into U+FFFD per byte), so streaming must wait for its end.
  [[nodiscard]] virtual bool has_byte_fallback() const { return false; }
  // One token's bytes as they appear in the middle of a decoded text: the per-token part of
  // the chain, without repairing invalid UTF-8 (a byte-level token may hold half a
  // character) and without what happens only at the text's start (Strip, Metaspace's
  // dropped first space). The grammar engine matches tokens by these bytes.
  virtual void to_raw_bytes(std::string& token) const { (void)token; }
};

// A null JSON value yields a null pointer (tokens are then joined with spaces, as HF does).
[[nodiscard]] result<std::unique_ptr<decoder>> parse_decoder(const boost::json::value& json);

// "<0xNN>" -> the byte NN.
[[nodiscard]] std::optional<unsigned char> byte_fallback_value(std::string_view token);

}  // namespace pagedserve
