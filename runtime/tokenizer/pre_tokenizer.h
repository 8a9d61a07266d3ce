#pragma once
// Pre-tokenizers of tokenizer.json ("pre_tokenizer"): Split, ByteLevel, Metaspace and Sequence.
// Each one replaces every piece by the pieces it splits into (empty pieces are dropped, as in
// HF's PreTokenizedString::split).

#include <memory>
#include <string>
#include <vector>

#include <boost/json/fwd.hpp>

#include "common/result.h"

namespace pagedserve {

struct pre_token {
  std::string text;
  // True when the piece starts at offset 0 of the original input (Metaspace's "first" scheme
  // prepends the replacement only there).
  bool at_origin = false;
};

class pre_tokenizer {
 public:
  virtual ~pre_tokenizer() = default;
  // Rewrites pieces in place; `scratch` is reusable storage.
  virtual void pre_tokenize(std::vector<pre_token>& pieces,
                            std::vector<pre_token>& scratch) const = 0;
};

// A null JSON value yields a null pointer (no pre-tokenizer).
[[nodiscard]] result<std::unique_ptr<pre_tokenizer>> parse_pre_tokenizer(
    const boost::json::value& json);

}  // namespace pagedserve
