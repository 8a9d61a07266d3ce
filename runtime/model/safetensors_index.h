#pragma once
// safetensors_index: model.safetensors.index.json of a sharded checkpoint, which maps each
// tensor name to the shard file holding it: {"metadata": {...}, "weight_map": {name: file}}.

#include <filesystem>
#include <map>
#include <set>
#include <string>

#include "common/result.h"

namespace pagedserve {

struct safetensors_index {
  std::filesystem::path path;                     // the index file itself
  std::map<std::string, std::string> weight_map;  // tensor name -> shard file name

  // The distinct shard file names, each a plain name inside the index's folder.
  [[nodiscard]] std::set<std::string> shard_names() const;
};

// Reads and checks the index: weight_map present, every value a plain file name (no folders,
// so a checkpoint cannot point outside its own folder). Errors name the file and the tensor.
[[nodiscard]] result<safetensors_index> read_safetensors_index(const std::filesystem::path& path);

}  // namespace pagedserve
