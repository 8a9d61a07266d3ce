// read_awq_linear: AutoAWQ's GEMM layout (QUANTIZATION.md section 1) into quantized_linear.

#include <array>

#include "runtime/quant/format_readers.h"
#include "runtime/quant/int_layout.h"
#include "runtime/quant/stored_tensor.h"

namespace pagedserve::quant {
namespace {

// Nibble i of a packed word holds logical column 8c + awq_order[i] (AWQ_ORDER in AutoAWQ's
// packing_utils; trap 1: mistaking it for sequential order gives garbage, not an error).
constexpr std::array<int, 8> awq_order = {0, 2, 4, 6, 1, 3, 5, 7};

// Unpacks one row of words packed along the output dim: values[8c + awq_order[i]] =
// nibble i of words[c].
void unpack_awq_row(const std::int32_t* words, std::int64_t num_words, std::uint8_t* values) {
  for (std::int64_t c = 0; c < num_words; ++c) {
    const auto word = static_cast<std::uint32_t>(words[c]);
    for (int i = 0; i < 8; ++i) {
      values[8 * c + awq_order[static_cast<std::size_t>(i)]] =
          static_cast<std::uint8_t>((word >> (4 * i)) & 0xFU);
    }
  }
}

status check_layout(const quant_spec& spec, const linear_shape& s, std::int64_t group) {
  const std::string where = spec.source + ": layer " + s.module + ": ";
  if (!spec.has_zero_points) {
    return make_error(error_code::unsupported,
                      where +
                          "zero_point false is not supported (AutoAWQ's GEMM layout "
                          "stores zero points; only that layout loads)");
  }
  if (s.out % 8 != 0) {
    return make_error(error_code::corrupt_data, where + "out_features " + std::to_string(s.out) +
                                                    " is not a multiple of 8 (AWQ packs 8 "
                                                    "outputs per int32)");
  }
  if (s.in % group != 0) {
    return make_error(error_code::corrupt_data, where + "group_size " + std::to_string(group) +
                                                    " does not divide in_features " +
                                                    std::to_string(s.in));
  }
  return status::success();
}

}  // namespace

result<quantized_linear> read_awq_linear(checkpoint_files& files, const quant_spec& spec,
                                         const linear_shape& s) {
  const std::int64_t group = spec.group_size == -1 ? s.in : spec.group_size;
  if (status ok = check_layout(spec, s, group); !ok) return ok.err();
  const std::int64_t groups = s.in / group;
  auto qweight = find_checked(files, s.module + ".qweight", {"I32"}, {s.in, s.out / 8});
  if (!qweight) return qweight.err();
  auto qzeros = find_checked(files, s.module + ".qzeros", {"I32"}, {groups, s.out / 8});
  if (!qzeros) return qzeros.err();
  auto scales = find_checked(files, s.module + ".scales", float_dtypes, {groups, s.out});
  if (!scales) return scales.err();

  const std::vector<float> scale_values = read_f32(*scales);
  if (status ok = check_scales(*scales, scale_values); !ok) return ok.err();
  // Both tensors are [input or group][output]; unpack each row, then store transposed.
  const std::vector<std::int32_t> weight_words = read_i32(*qweight);
  const std::vector<std::int32_t> zero_words = read_i32(*qzeros);
  int_layout_builder layout(kernels::weight_format::int4, s.out, s.in, group);
  std::vector<std::uint8_t> row(static_cast<std::size_t>(s.out));
  for (std::int64_t k = 0; k < s.in; ++k) {
    unpack_awq_row(weight_words.data() + k * (s.out / 8), s.out / 8, row.data());
    for (std::int64_t n = 0; n < s.out; ++n)
      layout.set_code(n, k, row[static_cast<std::size_t>(n)]);
  }
  for (std::int64_t g = 0; g < groups; ++g) {
    unpack_awq_row(zero_words.data() + g * (s.out / 8), s.out / 8, row.data());
    for (std::int64_t n = 0; n < s.out; ++n) {
      layout.set_group(n, g, row[static_cast<std::size_t>(n)],
                       scale_values[static_cast<std::size_t>(g * s.out + n)]);
    }
  }
  return std::move(layout).take();
}

}  // namespace pagedserve::quant
