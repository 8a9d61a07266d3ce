#pragma once
// safetensors_file: one mapped .safetensors file whose header has been checked against the
// file. Layout: 8-byte little-endian header length N, N bytes of JSON
// {name: {dtype, shape, data_offsets: [begin, end]}, "__metadata__": {...}}, then the data
// section; offsets are relative to the start of the data section.
//
// Invariants after open(): every entry's dtype is a known safetensors dtype, the product of
// its shape times the element size equals end - begin, every [begin, end) lies inside the
// data section, and no two entries overlap.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/result.h"
#include "runtime/model/mapped_file.h"
#include "runtime/model/model_config.h"

namespace pagedserve {

struct safetensors_entry {
  std::string dtype;                        // as written: "F32", "BF16", "I64", ...
  std::optional<weight_dtype> weight_type;  // set for the float types we load: F32, BF16, F16
  std::vector<std::int64_t> shape;
  std::span<const std::byte> bytes;  // inside the mapping
};

class safetensors_file {
 public:
  // Maps `path` and validates its header; errors name the path and, where one is at fault,
  // the tensor.
  [[nodiscard]] static result<safetensors_file> open(const std::filesystem::path& path);

  [[nodiscard]] const std::filesystem::path& path() const { return path_; }
  [[nodiscard]] const safetensors_entry* find(const std::string& name) const;
  [[nodiscard]] const std::map<std::string, safetensors_entry>& entries() const { return entries_; }
  // Owner of the memory every entry's bytes point into.
  [[nodiscard]] std::shared_ptr<const void> keep_alive() const { return mapping_; }

 private:
  std::filesystem::path path_;
  std::shared_ptr<const mapped_file> mapping_;
  std::map<std::string, safetensors_entry> entries_;
};

// Format of a shape in messages: "[512, 128]".
[[nodiscard]] std::string shape_to_string(std::span<const std::int64_t> shape);

}  // namespace pagedserve
