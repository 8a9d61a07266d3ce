#include "runtime/quant/online_fp8.h"

#include <memory>
#include <vector>

#include "runtime/model/weight_names.h"
#include "runtime/quant/quantized_checkpoint.h"
#include "runtime/quant/quantized_linear.h"
#include "runtime/quant/rtn_quantize.h"

namespace pagedserve::quant {

void quantize_linears_fp8(const model_config& config, checkpoint& weights) {
  std::vector<float> dense;
  for (const tensor_spec& spec : expected_tensors(config)) {
    if (spec.role != tensor_role::linear || module_of(spec.name) == "lm_head") continue;
    const host_tensor* tensor = weights.find(spec.name);
    if (tensor == nullptr) continue;  // the loader checked every tensor is there
    dense.resize(static_cast<std::size_t>(tensor->numel()));
    convert_to_f32(*tensor, dense);
    fp8_rtn_options options;
    options.strategy = fp8_strategy::channel;
    auto layer = quantize_fp8_rtn(dense, spec.shape[0], spec.shape[1], options);
    layer.fp8_activations = true;  // vLLM's --quantization fp8: W8A8, dynamic activations
    weights.add_quantized(spec.name, std::make_shared<const quantized_linear>(std::move(layer)));
  }
}

}  // namespace pagedserve::quant
