#include "quantize/safetensors_writer.h"

#include <array>
#include <boost/json.hpp>
#include <cstdlib>
#include <fstream>
#include <set>
#include <utility>

#include "kernels/cuda/half_bits.h"  // host-only f32 -> f16 bits (no CUDA types)
#include "runtime/model/dtype.h"

namespace pagedserve::quantize {
namespace {

namespace json = boost::json;

constexpr std::array<std::pair<std::string_view, std::size_t>, 12> element_sizes{{
    {"F64", 8},
    {"F32", 4},
    {"F16", 2},
    {"BF16", 2},
    {"I64", 8},
    {"I32", 4},
    {"I16", 2},
    {"I8", 1},
    {"U8", 1},
    {"BOOL", 1},
    {"F8_E4M3", 1},
    {"F8_E5M2", 1},
}};

status check_tensors(std::span<const safetensors_tensor> tensors) {
  std::set<std::string_view> names;
  for (const safetensors_tensor& t : tensors) {
    const std::size_t size = safetensors_element_size(t.dtype);
    if (size == 0) {
      return make_error(error_code::invalid_argument,
                        "tensor '" + t.name + "': unknown safetensors dtype '" + t.dtype + "'");
    }
    if (t.bytes.size() != static_cast<std::size_t>(t.numel()) * size) {
      return make_error(error_code::invalid_argument,
                        "tensor '" + t.name + "': " + std::to_string(t.bytes.size()) +
                            " bytes for " + std::to_string(t.numel()) + " " + t.dtype +
                            " elements");
    }
    if (!names.insert(t.name).second || t.name == "__metadata__") {
      return make_error(error_code::invalid_argument, "tensor '" + t.name + "' given twice");
    }
  }
  return status::success();
}

std::string header_of(std::span<const safetensors_tensor> tensors) {
  json::object header;
  header["__metadata__"] = json::object{{"format", "pt"}};
  std::int64_t offset = 0;
  for (const safetensors_tensor& t : tensors) {
    const auto end = offset + static_cast<std::int64_t>(t.bytes.size());
    json::array shape;
    for (std::int64_t extent : t.shape) shape.push_back(extent);
    header[t.name] = json::object{{"dtype", t.dtype},
                                  {"shape", std::move(shape)},
                                  {"data_offsets", json::array{offset, end}}};
    offset = end;
  }
  std::string text = json::serialize(header);
  text.append((8 - text.size() % 8) % 8, ' ');  // the data section starts 8-aligned
  return text;
}

status write_file(const std::filesystem::path& path, const std::string& header,
                  std::span<const safetensors_tensor> tensors) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return make_error(error_code::io_error, "cannot write " + path.string());
  const std::uint64_t length = header.size();
  out.write(reinterpret_cast<const char*>(&length), 8);  // little-endian hosts only (x86-64)
  out.write(header.data(), static_cast<std::streamsize>(header.size()));
  for (const safetensors_tensor& t : tensors) {
    out.write(reinterpret_cast<const char*>(t.bytes.data()),
              static_cast<std::streamsize>(t.bytes.size()));
  }
  if (!out.flush()) return make_error(error_code::io_error, "cannot write " + path.string());
  return status::success();
}

}  // namespace

std::int64_t safetensors_tensor::numel() const {
  std::int64_t count = 1;
  for (std::int64_t extent : shape) count *= extent;
  return count;
}

std::size_t safetensors_element_size(std::string_view dtype) {
  for (const auto& [name, size] : element_sizes) {
    if (name == dtype) return size;
  }
  return 0;
}

std::string safetensors_dtype_name(weight_dtype dtype) {
  switch (dtype) {
    case weight_dtype::f32:
      return "F32";
    case weight_dtype::bf16:
      return "BF16";
    case weight_dtype::f16:
      return "F16";
  }
  std::abort();
}

safetensors_tensor float_tensor(std::string name, weight_dtype dtype,
                                std::vector<std::int64_t> shape, std::span<const float> values) {
  if (dtype == weight_dtype::f32) {
    return owned_tensor(std::move(name), "F32", std::move(shape),
                        std::vector<float>(values.begin(), values.end()));
  }
  std::vector<std::uint16_t> bits(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    bits[i] = dtype == weight_dtype::bf16 ? f32_to_bf16(values[i])
                                          : kernels::cuda::f32_to_f16_bits(values[i]);
  }
  return owned_tensor(std::move(name), safetensors_dtype_name(dtype), std::move(shape), bits);
}

std::int64_t total_bytes(std::span<const safetensors_tensor> tensors) {
  std::int64_t sum = 0;
  for (const safetensors_tensor& t : tensors) sum += static_cast<std::int64_t>(t.bytes.size());
  return sum;
}

status write_safetensors(const std::filesystem::path& path,
                         std::span<const safetensors_tensor> tensors) {
  if (status checked = check_tensors(tensors); !checked) {
    return make_error(checked.err().code, path.string() + ": " + checked.err().message);
  }
  const std::filesystem::path partial = path.string() + ".partial";
  if (status written = write_file(partial, header_of(tensors), tensors); !written) {
    std::error_code ignored;
    std::filesystem::remove(partial, ignored);
    return written;
  }
  std::error_code ec;
  std::filesystem::rename(partial, path, ec);
  if (ec) {
    return make_error(error_code::io_error, "cannot rename " + partial.string() + " to " +
                                                path.string() + ": " + ec.message());
  }
  return status::success();
}

}  // namespace pagedserve::quantize
