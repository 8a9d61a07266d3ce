// load_safetensors_checkpoint: opens model.safetensors (or every shard named by
// model.safetensors.index.json), then checks each tensor the config implies.

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <set>

#include "runtime/model/checkpoint.h"
#include "runtime/model/dtype.h"
#include "runtime/model/safetensors_file.h"
#include "runtime/model/safetensors_index.h"
#include "runtime/model/weight_names.h"

namespace pagedserve {
namespace {

constexpr const char* single_file_name = "model.safetensors";
constexpr const char* index_file_name = "model.safetensors.index.json";

// The opened files by file name, plus the index when the checkpoint is sharded.
struct tensor_sources {
  std::map<std::string, safetensors_file> files;
  std::optional<safetensors_index> index;
};

result<tensor_sources> open_sharded(const std::filesystem::path& dir) {
  result<safetensors_index> index = read_safetensors_index(dir / index_file_name);
  if (!index) return index.err();
  tensor_sources sources;
  for (const std::string& shard : index->shard_names()) {
    result<safetensors_file> file = safetensors_file::open(dir / shard);
    if (!file) {
      std::string tensor;
      for (const auto& [name, file_name] : index->weight_map) {
        if (file_name == shard) tensor = name;
      }
      return make_error(file.err().code, file.err().message + " (shard named by " +
                                             index->path.string() + " for tensor '" + tensor +
                                             "')");
    }
    sources.files.emplace(shard, std::move(file).value());
  }
  sources.index = std::move(index).value();
  return sources;
}

result<tensor_sources> open_sources(const std::filesystem::path& dir) {
  std::error_code ec;
  if (std::filesystem::exists(dir / index_file_name, ec)) return open_sharded(dir);
  if (!std::filesystem::exists(dir / single_file_name, ec)) {
    return make_error(error_code::not_found, dir.string() + ": neither " + single_file_name +
                                                 " nor " + index_file_name + " found");
  }
  result<safetensors_file> file = safetensors_file::open(dir / single_file_name);
  if (!file) return file.err();
  tensor_sources sources;
  sources.files.emplace(single_file_name, std::move(file).value());
  return sources;
}

struct located {
  const safetensors_file* file = nullptr;
  const safetensors_entry* entry = nullptr;
};

result<located> locate(const tensor_sources& sources, const tensor_spec& spec) {
  const safetensors_file* file = &sources.files.begin()->second;
  if (sources.index) {
    auto mapped = sources.index->weight_map.find(spec.name);
    if (mapped == sources.index->weight_map.end()) {
      return make_error(error_code::not_found, sources.index->path.string() + ": tensor '" +
                                                   spec.name + "' is missing from weight_map");
    }
    file = &sources.files.at(mapped->second);
  }
  const safetensors_entry* entry = file->find(spec.name);
  if (entry == nullptr) {
    return make_error(error_code::not_found, file->path().string() + ": tensor '" + spec.name +
                                                 "' is missing (expected shape " +
                                                 shape_to_string(spec.shape) + ")");
  }
  return located{file, entry};
}

status check_against_spec(const located& where, const tensor_spec& spec) {
  const std::string prefix = where.file->path().string() + ": tensor '" + spec.name + "' ";
  if (!where.entry->weight_type) {
    return make_error(error_code::unsupported, prefix + "has dtype '" + where.entry->dtype +
                                                   "' (supported: F32, BF16, F16)");
  }
  if (where.entry->shape != spec.shape) {
    return make_error(error_code::corrupt_data,
                      prefix + "has shape " + shape_to_string(where.entry->shape) +
                          " but the config implies " + shape_to_string(spec.shape));
  }
  return status::success();
}

// Mapped bytes are used in place when aligned for their element type (the usual case:
// writers pad the header to 8 bytes); otherwise they are copied so consumers may load them
// as float/uint16 arrays.
void add_tensor(checkpoint& out, const tensor_spec& spec, const located& where) {
  host_tensor tensor{spec.name, *where.entry->weight_type, spec.shape, where.entry->bytes};
  const std::size_t alignment = element_size(tensor.dtype);
  if (reinterpret_cast<std::uintptr_t>(tensor.bytes.data()) % alignment == 0) {
    out.add(std::move(tensor), where.file->keep_alive());
    return;
  }
  auto copy = std::make_shared<std::byte[]>(tensor.bytes.size());
  std::copy(tensor.bytes.begin(), tensor.bytes.end(), copy.get());
  tensor.bytes = std::span<const std::byte>(copy.get(), tensor.bytes.size());
  out.add(std::move(tensor), std::move(copy));
}

void warn_about_extras(const tensor_sources& sources, const checkpoint& loaded) {
  std::size_t num_extra = 0;
  std::string example;
  for (const auto& [file_name, file] : sources.files) {
    for (const auto& [name, entry] : file.entries()) {
      if (loaded.find(name) != nullptr || is_recomputed_buffer(name)) continue;
      if (num_extra++ == 0) example = file.path().string() + ": '" + name + "'";
    }
  }
  if (num_extra != 0) {
    spdlog::warn("checkpoint: ignoring {} tensor(s) the model does not use, e.g. {}", num_extra,
                 example);
  }
}

}  // namespace

result<checkpoint> load_safetensors_checkpoint(const std::filesystem::path& dir,
                                               const model_config& config) {
  result<tensor_sources> sources = open_sources(dir);
  if (!sources) return sources.err();
  if (sources->files.empty()) {
    return make_error(error_code::corrupt_data, dir.string() + ": the index names no shards");
  }
  checkpoint out;
  for (const tensor_spec& spec : expected_tensors(config)) {
    result<located> where = locate(*sources, spec);
    if (!where) return where.err();
    if (status checked = check_against_spec(*where, spec); !checked) return checked.err();
    add_tensor(out, spec, *where);
  }
  warn_about_extras(*sources, out);
  return out;
}

}  // namespace pagedserve
