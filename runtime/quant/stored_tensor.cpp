#include "runtime/quant/stored_tensor.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "runtime/model/checkpoint.h"
#include "runtime/model/dtype.h"

namespace pagedserve::quant {
namespace {

std::string joined(std::initializer_list<std::string_view> names) {
  std::string out;
  for (std::string_view name : names) out += (out.empty() ? "" : " or ") + std::string(name);
  return out;
}

}  // namespace

result<located_tensor> find_checked(checkpoint_files& files, const std::string& name,
                                    std::initializer_list<std::string_view> dtypes,
                                    const std::vector<std::int64_t>& shape) {
  result<located_tensor> t = files.find(name);
  if (!t) return t.err();
  const std::string& dtype = t->entry->dtype;
  if (std::find(dtypes.begin(), dtypes.end(), dtype) == dtypes.end()) {
    return make_error(error_code::corrupt_data,
                      t->describe() + "has dtype " + dtype + ", expected " + joined(dtypes));
  }
  if (t->entry->shape != shape) {
    return make_error(error_code::corrupt_data,
                      t->describe() + "has shape " + shape_to_string(t->entry->shape) +
                          " but the config implies " + shape_to_string(shape));
  }
  return t;
}

std::vector<std::int32_t> read_i32(const located_tensor& t) {
  std::vector<std::int32_t> out(t.entry->bytes.size() / 4);
  std::memcpy(out.data(), t.entry->bytes.data(), out.size() * 4);
  return out;
}

std::vector<float> read_f32(const located_tensor& t) {
  const host_tensor view{t.name, *t.entry->weight_type, t.entry->shape, t.entry->bytes};
  std::vector<float> out(static_cast<std::size_t>(view.numel()));
  convert_to_f32(view, out);  // reads unaligned mappings through memcpy
  return out;
}

std::vector<std::uint8_t> read_u8(const located_tensor& t) {
  std::vector<std::uint8_t> out(t.entry->bytes.size());
  std::memcpy(out.data(), t.entry->bytes.data(), out.size());
  return out;
}

status check_scales(const located_tensor& t, const std::vector<float>& scales) {
  for (std::size_t i = 0; i < scales.size(); ++i) {
    if (!std::isfinite(scales[i]) || scales[i] < 0.0F) {
      return make_error(error_code::corrupt_data,
                        t.describe() + "holds scale " + std::to_string(scales[i]) + " at element " +
                            std::to_string(i) + " (scales must be finite and not negative)");
    }
  }
  return status::success();
}

}  // namespace pagedserve::quant
