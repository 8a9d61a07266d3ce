#include "runtime/model/safetensors_index.h"

#include "runtime/model/json_fields.h"

namespace pagedserve {
namespace {

bool is_plain_file_name(const std::string& name) {
  return !name.empty() && name != "." && name != ".." &&
         name.find_first_of("/\\") == std::string::npos;
}

}  // namespace

std::set<std::string> safetensors_index::shard_names() const {
  std::set<std::string> names;
  for (const auto& [tensor, shard] : weight_map) names.insert(shard);
  return names;
}

result<safetensors_index> read_safetensors_index(const std::filesystem::path& path) {
  result<boost::json::object> root = detail::read_json_object_file(path);
  if (!root) return root.err();
  const boost::json::value* map = root->if_contains("weight_map");
  if (map == nullptr || !map->is_object()) {
    return make_error(error_code::corrupt_data,
                      path.string() + ": key 'weight_map' is missing or not an object");
  }
  safetensors_index index{path, {}};
  for (const auto& [tensor, shard] : map->get_object()) {
    const std::string name(tensor);
    if (!shard.is_string() || !is_plain_file_name(std::string(shard.get_string()))) {
      return make_error(error_code::corrupt_data, path.string() + ": tensor '" + name +
                                                      "' maps to " + boost::json::serialize(shard) +
                                                      ", not a file name in this folder");
    }
    index.weight_map.emplace(name, std::string(shard.get_string()));
  }
  return index;
}

}  // namespace pagedserve
