#include "train/model/checkpoint_io.h"

#include <boost/json.hpp>
#include <cstring>
#include <fstream>

#include "runtime/model/dtype.h"
#include "runtime/model/safetensors_file.h"

namespace pagedserve::train {
namespace {

namespace json = boost::json;

std::int64_t element_bytes(const std::string& dtype) { return dtype == "BF16" ? 2 : 4; }

std::string header_of(const parameter_layout& layout, const std::vector<named_buffer>& buffers,
                      const std::string& dtype) {
  json::object header;
  std::int64_t offset = 0;
  for (const named_buffer& buffer : buffers) {
    for (const parameter_tensor& t : layout.tensors()) {
      const std::int64_t bytes = t.numel * element_bytes(dtype);
      json::array shape;
      for (std::int64_t dim : t.shape) shape.push_back(dim);
      header[buffer.prefix + t.name] =
          json::object{{"dtype", dtype},
                       {"shape", shape},
                       {"data_offsets", json::array{offset, offset + bytes}}};
      offset += bytes;
    }
  }
  header["__metadata__"] = json::object{{"format", "pt"}};
  std::string text = json::serialize(header);
  text.append((8 - text.size() % 8) % 8, ' ');  // the data section starts 8-aligned
  return text;
}

void write_values(std::ofstream& out, const float* values, std::int64_t count,
                  const std::string& dtype) {
  if (dtype == "F32") {
    out.write(reinterpret_cast<const char*>(values), count * 4);
    return;
  }
  std::vector<std::uint16_t> bits(static_cast<std::size_t>(count));
  for (std::int64_t i = 0; i < count; ++i)
    bits[static_cast<std::size_t>(i)] = f32_to_bf16(values[i]);
  out.write(reinterpret_cast<const char*>(bits.data()), count * 2);
}

// bf16 widens exactly (its bits are an fp32's high half).
void copy_as_f32(const safetensors_entry& entry, float* out) {
  if (entry.dtype == "F32") {
    std::memcpy(out, entry.bytes.data(), entry.bytes.size());
    return;
  }
  const std::size_t n = entry.bytes.size() / 2;
  for (std::size_t i = 0; i < n; ++i) {
    std::uint16_t bits = 0;
    std::memcpy(&bits, entry.bytes.data() + 2 * i, 2);
    out[i] = bf16_to_f32(bits);
  }
}

std::filesystem::path temporary_for(const std::filesystem::path& path) {
  return path.string() + ".partial";
}

status renamed(const std::filesystem::path& from, const std::filesystem::path& to) {
  std::error_code ec;
  std::filesystem::rename(from, to, ec);
  if (ec)
    return make_error(error_code::io_error,
                      "cannot rename to " + to.string() + ": " + ec.message());
  return status::success();
}

}  // namespace

status write_safetensors(const std::filesystem::path& path, const parameter_layout& layout,
                         const std::vector<named_buffer>& buffers, const std::string& dtype) {
  const std::string header = header_of(layout, buffers, dtype);
  const std::filesystem::path partial = temporary_for(path);
  {
    std::ofstream out(partial, std::ios::binary | std::ios::trunc);
    if (!out) return make_error(error_code::io_error, "cannot write " + partial.string());
    const std::uint64_t length = header.size();
    out.write(reinterpret_cast<const char*>(&length), 8);  // little-endian hosts only (x86-64)
    out.write(header.data(), static_cast<std::streamsize>(header.size()));
    for (const named_buffer& buffer : buffers) {
      for (const parameter_tensor& t : layout.tensors()) {
        write_values(out, buffer.values->data() + t.offset, t.numel, dtype);
      }
    }
    if (!out.flush()) return make_error(error_code::io_error, "cannot write " + partial.string());
  }
  return renamed(partial, path);
}

status read_safetensors(const std::filesystem::path& path, const parameter_layout& layout,
                        const std::string& prefix, std::vector<float>& values) {
  result<safetensors_file> file = safetensors_file::open(path);
  if (!file.ok()) return file.err();
  values.assign(static_cast<std::size_t>(layout.total()), 0.0F);
  for (const parameter_tensor& t : layout.tensors()) {
    const safetensors_entry* entry = file->find(prefix + t.name);
    if (entry == nullptr) {
      return make_error(error_code::not_found, path.string() + " has no " + prefix + t.name);
    }
    if ((entry->dtype != "F32" && entry->dtype != "BF16") || entry->shape != t.shape) {
      return make_error(error_code::corrupt_data,
                        path.string() + ": " + prefix + t.name + " is " + entry->dtype + " " +
                            shape_to_string(entry->shape) + ", expected F32 or BF16 " +
                            shape_to_string(t.shape));
    }
    copy_as_f32(*entry, values.data() + t.offset);
  }
  return status::success();
}

status write_text_file(const std::filesystem::path& path, const std::string& text) {
  const std::filesystem::path partial = temporary_for(path);
  {
    std::ofstream out(partial, std::ios::trunc);
    if (!out) return make_error(error_code::io_error, "cannot write " + partial.string());
    out << text;
    if (!out.flush()) return make_error(error_code::io_error, "cannot write " + partial.string());
  }
  return renamed(partial, path);
}

}  // namespace pagedserve::train
