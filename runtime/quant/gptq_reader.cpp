// read_gptq_linear: AutoGPTQ / GPTQModel tensors (QUANTIZATION.md section 2) into
// quantized_linear: v1's stored z - 1 undone, act-order's g_idx turned into sorted inputs.

#include <algorithm>
#include <numeric>

#include "runtime/quant/format_readers.h"
#include "runtime/quant/int_layout.h"
#include "runtime/quant/stored_tensor.h"

namespace pagedserve::quant {
namespace {

struct gptq_geometry {
  int bits = 4;
  std::int64_t per_word = 8;  // values per int32
  std::uint32_t mask = 0xF;
  std::int64_t group = 0;
  std::int64_t groups = 0;
};

std::uint32_t unpack(std::int32_t word, const gptq_geometry& g, std::int64_t slot) {
  return (static_cast<std::uint32_t>(word) >> (g.bits * slot)) & g.mask;
}

std::string layer_prefix(const quant_spec& spec, const linear_shape& s) {
  return spec.source + ": layer " + s.module + ": ";
}

status check_divisible(const quant_spec& spec, const linear_shape& s, const gptq_geometry& g) {
  if (s.in % g.per_word == 0 && s.out % g.per_word == 0) return status::success();
  return make_error(error_code::corrupt_data,
                    layer_prefix(spec, s) + "shape [" + std::to_string(s.out) + ", " +
                        std::to_string(s.in) + "] is not a multiple of " +
                        std::to_string(g.per_word) + " (" + std::to_string(g.bits) +
                        "-bit values per int32) in both dims");
}

// The input order that makes each group contiguous, or {} when g_idx is k / group already.
result<std::vector<std::int32_t>> input_order_from(const located_tensor& t,
                                                   const std::vector<std::int32_t>& g_idx,
                                                   const gptq_geometry& g) {
  bool trivial = true;
  for (std::size_t k = 0; k < g_idx.size(); ++k) {
    if (g_idx[k] < 0 || g_idx[k] >= g.groups) {
      return make_error(error_code::corrupt_data,
                        t.describe() + "assigns input " + std::to_string(k) + " to group " +
                            std::to_string(g_idx[k]) + " of " + std::to_string(g.groups));
    }
    trivial = trivial && g_idx[k] == static_cast<std::int64_t>(k) / g.group;
  }
  if (trivial) return std::vector<std::int32_t>{};
  std::vector<std::int32_t> order(g_idx.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::int32_t a, std::int32_t b) { return g_idx[a] < g_idx[b]; });
  for (std::size_t j = 0; j < order.size(); ++j) {
    if (g_idx[static_cast<std::size_t>(order[j])] != static_cast<std::int64_t>(j) / g.group) {
      return make_error(error_code::corrupt_data, t.describe() + "does not put exactly " +
                                                      std::to_string(g.group) +
                                                      " inputs in each group (group_size)");
    }
  }
  return order;
}

// The zero point of (group, output): v1 stores z - 1 (trap 2); a symmetric checkpoint's
// zero is the midpoint, which tells a mislabelled v1/v2 file apart.
result<std::uint8_t> zero_point(const quant_spec& spec, const located_tensor& t,
                                std::uint32_t stored, const gptq_geometry& g) {
  const std::uint32_t z = stored + (spec.zeros_stored_minus_one ? 1U : 0U);
  const std::uint32_t midpoint = 1U << (g.bits - 1);
  if (!spec.has_zero_points && z != midpoint) {
    const char* format = spec.zeros_stored_minus_one ? "gptq" : "gptq_v2";
    return make_error(error_code::corrupt_data,
                      t.describe() + "stores zero point " + std::to_string(stored) +
                          ", which checkpoint_format " + format + " reads as " + std::to_string(z) +
                          "; a symmetric " + std::to_string(g.bits) + "-bit checkpoint stores " +
                          std::to_string(midpoint - 1) + " in format gptq and " +
                          std::to_string(midpoint) +
                          " in gptq_v2: the config's format contradicts the weights");
  }
  if (z > 255U) {
    return make_error(error_code::corrupt_data,
                      t.describe() + "stores zero point " + std::to_string(stored) +
                          ", which format gptq reads as " + std::to_string(z) +
                          ", out of range for " + std::to_string(g.bits) + " bits");
  }
  return static_cast<std::uint8_t>(z);
}

}  // namespace

result<quantized_linear> read_gptq_linear(checkpoint_files& files, const quant_spec& spec,
                                          const linear_shape& s) {
  gptq_geometry g;
  g.bits = spec.bits;
  g.per_word = 32 / g.bits;
  g.mask = (1U << g.bits) - 1U;
  g.group = spec.group_size == -1 ? s.in : spec.group_size;
  g.groups = (s.in + g.group - 1) / g.group;
  if (status ok = check_divisible(spec, s, g); !ok) return ok.err();
  auto qweight = find_checked(files, s.module + ".qweight", {"I32"}, {s.in / g.per_word, s.out});
  if (!qweight) return qweight.err();
  auto qzeros = find_checked(files, s.module + ".qzeros", {"I32"}, {g.groups, s.out / g.per_word});
  if (!qzeros) return qzeros.err();
  auto scales = find_checked(files, s.module + ".scales", float_dtypes, {g.groups, s.out});
  if (!scales) return scales.err();
  std::vector<std::int32_t> order;
  if (spec.desc_act || files.contains(s.module + ".g_idx")) {
    auto g_idx = find_checked(files, s.module + ".g_idx", {"I32"}, {s.in});
    if (!g_idx) return g_idx.err();
    auto sorted = input_order_from(*g_idx, read_i32(*g_idx), g);
    if (!sorted) return sorted.err();
    order = std::move(*sorted);
  }
  const std::vector<float> scale_values = read_f32(*scales);
  if (status ok = check_scales(*scales, scale_values); !ok) return ok.err();

  int_layout_builder layout(
      g.bits == 4 ? kernels::weight_format::int4 : kernels::weight_format::int8, s.out, s.in,
      g.group);
  std::vector<std::int64_t> column_of(static_cast<std::size_t>(s.in));  // input -> code column
  std::iota(column_of.begin(), column_of.end(), 0);
  for (std::size_t j = 0; j < order.size(); ++j) column_of[static_cast<std::size_t>(order[j])] = j;
  const std::vector<std::int32_t> words = read_i32(*qweight);
  for (std::int64_t k = 0; k < s.in; ++k) {
    const std::int32_t* row = words.data() + (k / g.per_word) * s.out;
    for (std::int64_t n = 0; n < s.out; ++n) {
      layout.set_code(n, column_of[static_cast<std::size_t>(k)],
                      static_cast<std::uint8_t>(unpack(row[n], g, k % g.per_word)));
    }
  }
  const std::vector<std::int32_t> zero_words = read_i32(*qzeros);
  for (std::int64_t grp = 0; grp < g.groups; ++grp) {
    for (std::int64_t n = 0; n < s.out; ++n) {
      const std::int32_t word =
          zero_words[static_cast<std::size_t>(grp * (s.out / g.per_word) + n / g.per_word)];
      auto z = zero_point(spec, *qzeros, unpack(word, g, n % g.per_word), g);
      if (!z) return z.err();
      layout.set_group(n, grp, *z, scale_values[static_cast<std::size_t>(grp * s.out + n)]);
    }
  }
  layout.set_input_order(std::move(order));
  return std::move(layout).take();
}

}  // namespace pagedserve::quant
