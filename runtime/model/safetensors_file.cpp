#include "runtime/model/safetensors_file.h"

#include <algorithm>
#include <array>
#include <boost/json.hpp>
#include <string_view>
#include <utility>

namespace pagedserve {
namespace {

// The safetensors format caps the header at 100 MB.
constexpr std::uint64_t max_header_bytes = 100ULL * 1000 * 1000;
constexpr std::size_t length_prefix_bytes = 8;

struct dtype_info {
  std::string_view name;
  std::size_t size;
  std::optional<weight_dtype> weight_type;
};

constexpr std::array<dtype_info, 15> known_dtypes{{
    {"F32", 4, weight_dtype::f32},
    {"BF16", 2, weight_dtype::bf16},
    {"F16", 2, weight_dtype::f16},
    {"F64", 8, std::nullopt},
    {"I64", 8, std::nullopt},
    {"I32", 4, std::nullopt},
    {"I16", 2, std::nullopt},
    {"I8", 1, std::nullopt},
    {"U64", 8, std::nullopt},
    {"U32", 4, std::nullopt},
    {"U16", 2, std::nullopt},
    {"U8", 1, std::nullopt},
    {"BOOL", 1, std::nullopt},
    {"F8_E4M3", 1, std::nullopt},
    {"F8_E5M2", 1, std::nullopt},
}};

const dtype_info* find_dtype(std::string_view name) {
  for (const dtype_info& info : known_dtypes) {
    if (info.name == name) return &info;
  }
  return nullptr;
}

// Reads a non-negative integer that fits in int64; nullopt otherwise.
std::optional<std::int64_t> as_count(const boost::json::value& value) {
  if (value.is_int64() && value.get_int64() >= 0) return value.get_int64();
  if (value.is_uint64() && value.get_uint64() <= static_cast<std::uint64_t>(INT64_MAX)) {
    return static_cast<std::int64_t>(value.get_uint64());
  }
  return std::nullopt;
}

struct raw_entry {
  std::string name;
  safetensors_entry entry;
  std::uint64_t begin = 0;
  std::uint64_t end = 0;
};

class header_parser {
 public:
  header_parser(const std::filesystem::path& path, std::uint64_t data_size)
      : path_(path.string()), data_size_(data_size) {}

  result<raw_entry> parse_entry(const std::string& name, const boost::json::value& value) const {
    const boost::json::object* fields = value.if_object();
    if (fields == nullptr) return fail(name, "header entry is not an object");
    const boost::json::value* dtype = fields->if_contains("dtype");
    const boost::json::value* shape = fields->if_contains("shape");
    const boost::json::value* offsets = fields->if_contains("data_offsets");
    if (dtype == nullptr || !dtype->is_string()) return fail(name, "missing or non-string dtype");
    if (shape == nullptr || !shape->is_array()) return fail(name, "missing or non-array shape");
    if (offsets == nullptr || !offsets->is_array() || offsets->get_array().size() != 2) {
      return fail(name, "data_offsets must be an array [begin, end]");
    }
    raw_entry raw{name, {}, 0, 0};
    raw.entry.dtype = std::string(dtype->get_string());
    const dtype_info* info = find_dtype(raw.entry.dtype);
    if (info == nullptr) return fail(name, "unknown dtype '" + raw.entry.dtype + "'");
    raw.entry.weight_type = info->weight_type;

    std::uint64_t numel = 1;
    for (const boost::json::value& dim : shape->get_array()) {
      const std::optional<std::int64_t> extent = as_count(dim);
      if (!extent) return fail(name, "shape " + boost::json::serialize(*shape) + " is invalid");
      if (__builtin_mul_overflow(numel, static_cast<std::uint64_t>(*extent), &numel)) {
        return fail(name, "shape " + boost::json::serialize(*shape) + " overflows");
      }
      raw.entry.shape.push_back(*extent);
    }
    const std::optional<std::int64_t> begin = as_count(offsets->get_array()[0]);
    const std::optional<std::int64_t> end = as_count(offsets->get_array()[1]);
    if (!begin || !end || *begin > *end) {
      return fail(name, "data_offsets " + boost::json::serialize(*offsets) + " are invalid");
    }
    raw.begin = static_cast<std::uint64_t>(*begin);
    raw.end = static_cast<std::uint64_t>(*end);
    if (raw.end > data_size_) {
      return fail(name, "data_offsets " + boost::json::serialize(*offsets) +
                            " run past the end of the data section (" + std::to_string(data_size_) +
                            " bytes; file truncated?)");
    }
    std::uint64_t expected_bytes = 0;
    if (__builtin_mul_overflow(numel, info->size, &expected_bytes) ||
        expected_bytes != raw.end - raw.begin) {
      return fail(name, "shape " + shape_to_string(raw.entry.shape) + " of " + raw.entry.dtype +
                            " needs " + std::to_string(numel) + " x " + std::to_string(info->size) +
                            " bytes but data_offsets span " + std::to_string(raw.end - raw.begin));
    }
    return raw;
  }

  [[nodiscard]] error fail(const std::string& tensor, const std::string& what) const {
    return make_error(error_code::corrupt_data, path_ + ": tensor '" + tensor + "': " + what);
  }

 private:
  std::string path_;
  std::uint64_t data_size_;
};

// Entries sorted by offset must not overlap (zero-sized entries may share a boundary).
status check_no_overlap(std::vector<raw_entry>& raws, const header_parser& parser) {
  std::sort(raws.begin(), raws.end(), [](const raw_entry& a, const raw_entry& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  for (std::size_t i = 1; i < raws.size(); ++i) {
    if (raws[i].begin < raws[i - 1].end) {
      return parser.fail(raws[i].name,
                         "data_offsets overlap those of tensor '" + raws[i - 1].name + "'");
    }
  }
  return status::success();
}

}  // namespace

std::string shape_to_string(std::span<const std::int64_t> shape) {
  std::string out = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i != 0) out += ", ";
    out += std::to_string(shape[i]);
  }
  return out + "]";
}

result<safetensors_file> safetensors_file::open(const std::filesystem::path& path) {
  result<std::shared_ptr<const mapped_file>> mapping = mapped_file::open(path);
  if (!mapping) return mapping.err();
  const std::span<const std::byte> file = (*mapping)->bytes();
  const std::string where = path.string() + ": ";
  if (file.size() < length_prefix_bytes) {
    return make_error(error_code::corrupt_data, where + "file of " + std::to_string(file.size()) +
                                                    " bytes is too small for a safetensors header");
  }
  std::uint64_t header_bytes = 0;
  for (std::size_t i = 0; i < length_prefix_bytes; ++i) {  // little-endian on every host
    header_bytes |= static_cast<std::uint64_t>(file[i]) << (8 * i);
  }
  if (header_bytes > max_header_bytes || header_bytes > file.size() - length_prefix_bytes) {
    return make_error(error_code::corrupt_data,
                      where + "header length " + std::to_string(header_bytes) +
                          " exceeds the file size " + std::to_string(file.size()));
  }
  const std::span<const std::byte> header = file.subspan(length_prefix_bytes, header_bytes);
  const std::span<const std::byte> data = file.subspan(length_prefix_bytes + header_bytes);

  boost::system::error_code ec;
  const boost::json::value root = boost::json::parse(
      std::string_view(reinterpret_cast<const char*>(header.data()), header.size()), ec);
  if (ec || !root.is_object()) {
    return make_error(error_code::corrupt_data, where + "header is not a JSON object" +
                                                    (ec ? " (" + ec.message() + ")" : ""));
  }
  const header_parser parser(path, data.size());
  std::vector<raw_entry> raws;
  for (const auto& [key, value] : root.get_object()) {
    if (key == "__metadata__") continue;
    result<raw_entry> raw = parser.parse_entry(std::string(key), value);
    if (!raw) return raw.err();
    raws.push_back(std::move(raw).value());
  }
  if (status ordered = check_no_overlap(raws, parser); !ordered) return ordered.err();

  safetensors_file out;
  out.path_ = path;
  out.mapping_ = std::move(mapping).value();
  for (raw_entry& raw : raws) {
    raw.entry.bytes = data.subspan(raw.begin, raw.end - raw.begin);
    out.entries_.emplace(std::move(raw.name), std::move(raw.entry));
  }
  return out;
}

const safetensors_entry* safetensors_file::find(const std::string& name) const {
  auto it = entries_.find(name);
  return it == entries_.end() ? nullptr : &it->second;
}

}  // namespace pagedserve
