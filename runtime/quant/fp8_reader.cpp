// read_fp8_linear: e4m3 weights with per-tensor, per-channel or block scales (HF fp8 and
// compressed-tensors, QUANTIZATION.md section 3) into quantized_linear. Activation scales
// (static input_scale) are checked to exist and otherwise unused: the CPU computes W8A16,
// activations in fp32, as vLLM does on GPUs without fp8 (so results match the dequantized
// weights exactly).

#include <algorithm>

#include "runtime/quant/format_readers.h"
#include "runtime/quant/stored_tensor.h"

namespace pagedserve::quant {
namespace {

struct scale_layout {
  std::string tensor;  // suffix: weight_scale_inv (HF block) or weight_scale
  std::int64_t block_rows = 1;
  std::int64_t group_size = 1;
  std::vector<std::vector<std::int64_t>> shapes;  // accepted shapes of the scale tensor
};

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

scale_layout layout_of(const quant_spec& spec, const linear_shape& s) {
  scale_layout l;
  // HF's block checkpoints store the multiplier as weight_scale_inv (trap 4: it is not an
  // inverse to undo); compressed-tensors and HF per-tensor checkpoints say weight_scale.
  const bool hf_block =
      spec.method == quant_method::fp8 && spec.weight_strategy == scale_strategy::block;
  l.tensor = hf_block ? "weight_scale_inv" : "weight_scale";
  switch (spec.weight_strategy) {
    case scale_strategy::block:
      l.block_rows = spec.weight_block_rows;
      l.group_size = spec.weight_block_cols;
      l.shapes = {{ceil_div(s.out, l.block_rows), ceil_div(s.in, l.group_size)}};
      break;
    case scale_strategy::channel:
      l.block_rows = 1;
      l.group_size = s.in;
      l.shapes = {{s.out, 1}, {s.out}};
      break;
    case scale_strategy::tensor:
    case scale_strategy::group:
      l.block_rows = s.out;
      l.group_size = s.in;
      l.shapes = {{1}, {}};
      break;
  }
  return l;
}

result<located_tensor> find_scale(checkpoint_files& files, const linear_shape& s,
                                  const scale_layout& l) {
  result<located_tensor> t = files.find(s.module + "." + l.tensor);
  if (!t) return t.err();
  if (!t->entry->weight_type) {
    return make_error(error_code::corrupt_data, t->describe() + "has dtype " + t->entry->dtype +
                                                    ", expected F32, BF16 or F16");
  }
  if (std::find(l.shapes.begin(), l.shapes.end(), t->entry->shape) == l.shapes.end()) {
    return make_error(error_code::corrupt_data,
                      t->describe() + "has shape " + shape_to_string(t->entry->shape) +
                          " but the quantization_config implies " + shape_to_string(l.shapes[0]));
  }
  return t;
}

status check_codes(const located_tensor& t, const std::vector<std::uint8_t>& codes) {
  for (std::size_t i = 0; i < codes.size(); ++i) {
    if ((codes[i] & 0x7FU) == 0x7FU) {
      return make_error(error_code::corrupt_data,
                        t.describe() + "holds NaN at element " + std::to_string(i));
    }
  }
  return status::success();
}

}  // namespace

result<quantized_linear> read_fp8_linear(checkpoint_files& files, const quant_spec& spec,
                                         const linear_shape& s) {
  auto weight = find_checked(files, s.module + ".weight", {"F8_E4M3"}, {s.out, s.in});
  if (!weight) return weight.err();
  const scale_layout l = layout_of(spec, s);
  auto scale = find_scale(files, s, l);
  if (!scale) return scale.err();
  if (spec.activations == activation_scheme::static_per_tensor) {
    auto input_scale = files.find(s.module + ".input_scale");
    if (!input_scale) return input_scale.err();
  }
  quantized_linear layer;
  layer.format = kernels::weight_format::fp8_e4m3;
  layer.out_features = s.out;
  layer.in_features = s.in;
  layer.block_rows = l.block_rows;
  layer.group_size = l.group_size;
  layer.fp8_activations = spec.activations != activation_scheme::none;
  layer.codes = read_u8(*weight);
  if (status ok = check_codes(*weight, layer.codes); !ok) return ok.err();
  layer.scales = read_f32(*scale);
  if (status ok = check_scales(*scale, layer.scales); !ok) return ok.err();
  return layer;
}

result<quantized_linear> read_quantized_linear(checkpoint_files& files, const quant_spec& spec,
                                               const linear_shape& shape) {
  switch (spec.method) {
    case quant_method::awq:
      return read_awq_linear(files, spec, shape);
    case quant_method::gptq:
      return read_gptq_linear(files, spec, shape);
    case quant_method::fp8:
    case quant_method::compressed_tensors:
      return read_fp8_linear(files, spec, shape);
    case quant_method::none:
      break;
  }
  return make_error(error_code::internal, "read_quantized_linear: no quantization method");
}

}  // namespace pagedserve::quant
