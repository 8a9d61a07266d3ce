#include "train/tokenizer/llama3_pre_tokenizer.h"

#include <boost/json.hpp>

namespace pagedserve::train {

boost::json::value llama3_pre_tokenizer_json() {
  boost::json::object split{{"type", "Split"},
                            {"pattern", {{"Regex", llama3_split_pattern}}},
                            {"behavior", "Isolated"},
                            {"invert", false}};
  boost::json::object byte_level{{"type", "ByteLevel"},
                                 {"add_prefix_space", false},
                                 {"trim_offsets", true},
                                 {"use_regex", false}};
  return boost::json::object{{"type", "Sequence"},
                             {"pretokenizers", boost::json::array{split, byte_level}}};
}

result<std::unique_ptr<pre_tokenizer>> make_llama3_pre_tokenizer() {
  return parse_pre_tokenizer(llama3_pre_tokenizer_json());
}

}  // namespace pagedserve::train
