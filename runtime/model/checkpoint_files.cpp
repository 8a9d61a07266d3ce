#include "runtime/model/checkpoint_files.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdint>
#include <memory>

#include "runtime/model/dtype.h"

namespace pagedserve {
namespace {

constexpr const char* single_file_name = "model.safetensors";
constexpr const char* index_file_name = "model.safetensors.index.json";

std::string tensor_of_shard(const safetensors_index& index, const std::string& shard) {
  for (const auto& [name, file_name] : index.weight_map) {
    if (file_name == shard) return name;
  }
  return {};
}

}  // namespace

std::string located_tensor::describe() const {
  return file->path().string() + ": tensor '" + name + "' ";
}

result<checkpoint_files> checkpoint_files::open(const std::filesystem::path& dir) {
  checkpoint_files out;
  std::error_code ec;
  if (std::filesystem::exists(dir / index_file_name, ec)) {
    result<safetensors_index> index = read_safetensors_index(dir / index_file_name);
    if (!index) return index.err();
    for (const std::string& shard : index->shard_names()) {
      result<safetensors_file> file = safetensors_file::open(dir / shard);
      if (!file) {
        return make_error(file.err().code, file.err().message + " (shard named by " +
                                               index->path.string() + " for tensor '" +
                                               tensor_of_shard(*index, shard) + "')");
      }
      out.files_.emplace(shard, std::move(file).value());
    }
    out.index_ = std::move(index).value();
  } else if (std::filesystem::exists(dir / single_file_name, ec)) {
    result<safetensors_file> file = safetensors_file::open(dir / single_file_name);
    if (!file) return file.err();
    out.files_.emplace(single_file_name, std::move(file).value());
  } else {
    return make_error(error_code::not_found, dir.string() + ": neither " + single_file_name +
                                                 " nor " + index_file_name + " found");
  }
  if (out.files_.empty()) {
    return make_error(error_code::corrupt_data, dir.string() + ": the index names no shards");
  }
  return out;
}

const safetensors_file* checkpoint_files::file_for(const std::string& name) const {
  if (!index_) return &files_.begin()->second;
  auto mapped = index_->weight_map.find(name);
  return mapped == index_->weight_map.end() ? nullptr : &files_.at(mapped->second);
}

bool checkpoint_files::contains(const std::string& name) const {
  const safetensors_file* file = file_for(name);
  return file != nullptr && file->find(name) != nullptr;
}

result<located_tensor> checkpoint_files::find(const std::string& name) {
  const safetensors_file* file = file_for(name);
  if (file == nullptr) {
    return make_error(error_code::not_found,
                      index_->path.string() + ": tensor '" + name + "' is missing from weight_map");
  }
  const safetensors_entry* entry = file->find(name);
  if (entry == nullptr) {
    return make_error(error_code::not_found,
                      file->path().string() + ": tensor '" + name + "' is missing");
  }
  taken_.insert(name);
  return located_tensor{file, entry, name};
}

void checkpoint_files::warn_about_unused() const {
  std::size_t num_extra = 0;
  std::string example;
  for (const auto& [file_name, file] : files_) {
    for (const auto& [name, entry] : file.entries()) {
      if (taken_.contains(name) || is_recomputed_buffer(name)) continue;
      if (num_extra++ == 0) example = file.path().string() + ": '" + name + "'";
    }
  }
  if (num_extra != 0) {
    spdlog::warn("checkpoint: ignoring {} tensor(s) the model does not use, e.g. {}", num_extra,
                 example);
  }
}

status add_float_tensor(checkpoint& out, const tensor_spec& spec, const located_tensor& where) {
  if (!where.entry->weight_type) {
    return make_error(
        error_code::unsupported,
        where.describe() + "has dtype '" + where.entry->dtype + "' (supported: F32, BF16, F16)");
  }
  if (where.entry->shape != spec.shape) {
    return make_error(error_code::corrupt_data,
                      where.describe() + "has shape " + shape_to_string(where.entry->shape) +
                          " but the config implies " + shape_to_string(spec.shape));
  }
  // Mapped bytes are used in place when aligned for their element type (the usual case:
  // writers pad the header to 8 bytes); otherwise they are copied so consumers may load
  // them as float/uint16 arrays.
  host_tensor tensor{spec.name, *where.entry->weight_type, spec.shape, where.entry->bytes};
  const std::size_t alignment = element_size(tensor.dtype);
  if (reinterpret_cast<std::uintptr_t>(tensor.bytes.data()) % alignment == 0) {
    out.add(std::move(tensor), where.file->keep_alive());
    return status::success();
  }
  auto copy = std::make_shared<std::byte[]>(tensor.bytes.size());
  std::copy(tensor.bytes.begin(), tensor.bytes.end(), copy.get());
  tensor.bytes = std::span<const std::byte>(copy.get(), tensor.bytes.size());
  out.add(std::move(tensor), std::move(copy));
  return status::success();
}

}  // namespace pagedserve
