#pragma once
// Normalizers of tokenizer.json ("normalizer"): NFC/NFD/NFKC/NFKD, Prepend, Replace and
// Sequence. Each rewrites one piece of text (HF applies them to every piece left between
// added tokens separately).

#include <memory>
#include <string>

#include <boost/json/fwd.hpp>

#include "common/result.h"

namespace pagedserve {

class normalizer {
 public:
  virtual ~normalizer() = default;
  virtual void normalize(std::string& text) const = 0;
};

// A null JSON value yields a null pointer (no normalizer).
[[nodiscard]] result<std::unique_ptr<normalizer>> parse_normalizer(const boost::json::value& json);

}  // namespace pagedserve
