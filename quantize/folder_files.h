#pragma once
// folder_files: the files of a HF folder besides its weights: config.json as a JSON object
// (kept whole: fields we do not model are written back unchanged) and the tokenizer and
// generation files, copied as they are.

#include <boost/json/object.hpp>
#include <filesystem>

#include "common/result.h"

namespace pagedserve::quantize {

// <dir>/config.json as an object; errors name the file.
[[nodiscard]] result<boost::json::object> read_config_object(const std::filesystem::path& dir);

// Writes `config` to <dir>/config.json (through a temporary name and a rename).
[[nodiscard]] status write_config_object(const std::filesystem::path& dir,
                                         const boost::json::object& config);

// Copies tokenizer.json, tokenizer_config.json, generation_config.json and
// special_tokens_map.json from `from` to `to`, each when present.
[[nodiscard]] status copy_side_files(const std::filesystem::path& from,
                                     const std::filesystem::path& to);

}  // namespace pagedserve::quantize
