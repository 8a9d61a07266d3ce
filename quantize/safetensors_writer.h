#pragma once
// safetensors_writer: writes named tensors of any dtype to one .safetensors file, the layout
// runtime/model/safetensors_file.h reads: an 8-byte little-endian header length N, N bytes
// of JSON {name: {dtype, shape, data_offsets}, "__metadata__": {"format": "pt"}} padded with
// spaces to a multiple of 8 (so the data section starts 8-aligned), then the data in the
// order given. The file appears under its name only once complete (written to
// "<path>.partial", then renamed).

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "runtime/model/model_config.h"

namespace pagedserve::quantize {

struct safetensors_tensor {
  std::string name;
  std::string dtype;  // "F32", "F16", "BF16", "I32", "F8_E4M3" (any safetensors dtype name)
  std::vector<std::int64_t> shape;
  // What is written: into `storage` when the tensor owns its bytes, else into memory the
  // caller keeps alive until the write returns (a mapped source checkpoint).
  std::span<const std::byte> bytes;
  std::shared_ptr<const std::vector<std::byte>> storage;

  [[nodiscard]] std::int64_t numel() const;
};

// Bytes per element of a safetensors dtype name; 0 for a name it does not know.
[[nodiscard]] std::size_t safetensors_element_size(std::string_view dtype);

// A tensor that owns a copy of `values`' bytes (host byte order: little-endian x86-64).
template <class T>
[[nodiscard]] safetensors_tensor owned_tensor(std::string name, std::string dtype,
                                              std::vector<std::int64_t> shape,
                                              const std::vector<T>& values) {
  auto storage = std::make_shared<std::vector<std::byte>>(values.size() * sizeof(T));
  if (!values.empty()) std::memcpy(storage->data(), values.data(), storage->size());
  safetensors_tensor t{std::move(name), std::move(dtype), std::move(shape), {}, nullptr};
  t.bytes = std::span<const std::byte>(*storage);
  t.storage = std::move(storage);
  return t;
}

// fp32 values stored as F32, BF16 or F16 (rounded to nearest even; exact for values already
// representable in `dtype`, such as scales rounded before use).
[[nodiscard]] safetensors_tensor float_tensor(std::string name, weight_dtype dtype,
                                              std::vector<std::int64_t> shape,
                                              std::span<const float> values);

// The safetensors name of a float storage type: "F32", "BF16", "F16".
[[nodiscard]] std::string safetensors_dtype_name(weight_dtype dtype);

// Sum of the tensors' data bytes (what the file holds besides its header).
[[nodiscard]] std::int64_t total_bytes(std::span<const safetensors_tensor> tensors);

// Errors: an unknown dtype, bytes that are not numel x element size, a name given twice
// (invalid_argument, naming the tensor); a file that cannot be written (io_error).
[[nodiscard]] status write_safetensors(const std::filesystem::path& path,
                                       std::span<const safetensors_tensor> tensors);

}  // namespace pagedserve::quantize
