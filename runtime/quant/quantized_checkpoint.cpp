#include "runtime/quant/quantized_checkpoint.h"

#include <memory>

#include "runtime/model/checkpoint_files.h"
#include "runtime/model/kv_scales.h"
#include "runtime/model/weight_names.h"
#include "runtime/quant/format_readers.h"

namespace pagedserve::quant {
namespace {

status add_quantized_linear(checkpoint& out, checkpoint_files& files, const quant_spec& spec,
                            const tensor_spec& weight) {
  const linear_shape shape{module_of(weight.name), weight.shape[0], weight.shape[1]};
  result<quantized_linear> layer = read_quantized_linear(files, spec, shape);
  if (!layer) return layer.err();
  out.add_quantized(weight.name, std::make_shared<const quantized_linear>(std::move(*layer)));
  return status::success();
}

status add_dense(checkpoint& out, checkpoint_files& files, const tensor_spec& spec) {
  result<located_tensor> where = files.find(spec.name);
  if (!where) {
    return make_error(where.err().code, where.err().message + " (expected shape " +
                                            shape_to_string(spec.shape) + ")");
  }
  return add_float_tensor(out, spec, *where);
}

}  // namespace

std::string module_of(const std::string& weight_name) {
  constexpr std::string_view suffix = ".weight";
  if (!weight_name.ends_with(suffix)) return weight_name;
  return weight_name.substr(0, weight_name.size() - suffix.size());
}

result<checkpoint> load_quantized_checkpoint(const std::filesystem::path& dir,
                                             const model_config& config, const quant_spec& spec) {
  result<checkpoint_files> files = checkpoint_files::open(dir);
  if (!files) return files.err();
  checkpoint out;
  for (const tensor_spec& tensor : expected_tensors(config)) {
    const bool quantized =
        tensor.role == tensor_role::linear && spec.quantizes(module_of(tensor.name));
    status added = quantized ? add_quantized_linear(out, *files, spec, tensor)
                             : add_dense(out, *files, tensor);
    if (!added) return added.err();
  }
  auto kv_scales = read_kv_scales(*files, config);
  if (!kv_scales) return kv_scales.err();
  out.set_kv_scales(std::move(*kv_scales));
  files->warn_about_unused();
  return out;
}

}  // namespace pagedserve::quant
