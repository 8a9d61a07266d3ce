#pragma once
// Post-processors of tokenizer.json ("post_processor") for a single sequence:
// TemplateProcessing adds its special tokens around the sequence; ByteLevel only moves offsets
// (which we do not track), so it leaves ids alone; Sequence applies each in turn.

#include <memory>
#include <vector>

#include <boost/json/fwd.hpp>

#include "common/result.h"
#include "common/types.h"

namespace pagedserve {

class post_processor {
 public:
  virtual ~post_processor() = default;
  // ids: the encoded sequence; rewritten with the special tokens added.
  virtual void process(std::vector<token_id>& ids) const = 0;
};

// A null JSON value yields a null pointer (no post-processing).
[[nodiscard]] result<std::unique_ptr<post_processor>> parse_post_processor(
    const boost::json::value& json);

}  // namespace pagedserve
