#include "runtime/model/kv_scales.h"

#include <cmath>
#include <string>

#include "runtime/model/checkpoint.h"
#include "runtime/model/dtype.h"

namespace pagedserve {
namespace {

// The one value of a scalar scale tensor (shape [] or [1]), or an error naming it.
result<float> read_scalar(const located_tensor& t) {
  host_tensor view{t.name, t.entry->weight_type.value_or(weight_dtype::f32), t.entry->shape,
                   t.entry->bytes};
  if (!t.entry->weight_type || view.numel() != 1) {
    return make_error(error_code::corrupt_data, t.describe() + "is not one F32/BF16/F16 value (" +
                                                    t.entry->dtype + " " +
                                                    shape_to_string(t.entry->shape) + ")");
  }
  std::vector<float> value(1);
  convert_to_f32(view, value);
  if (!std::isfinite(value[0]) || value[0] <= 0.0F) {
    return make_error(error_code::corrupt_data,
                      t.describe() + "holds " + std::to_string(value[0]) +
                          " (a KV cache scale must be finite and positive)");
  }
  return value[0];
}

// The first of `names` the checkpoint has; nullopt when none.
result<std::optional<float>> first_scale(checkpoint_files& files,
                                         std::initializer_list<std::string> names) {
  for (const std::string& name : names) {
    if (!files.contains(name)) continue;
    auto t = files.find(name);
    if (!t) return t.err();
    auto value = read_scalar(*t);
    if (!value) return value.err();
    return std::optional<float>(*value);
  }
  return std::optional<float>{};
}

}  // namespace

result<std::optional<kv_cache_scales>> read_kv_scales(checkpoint_files& files,
                                                      const model_config& config) {
  kv_cache_scales scales;
  std::int64_t num_found = 0;
  for (std::int64_t layer = 0; layer < config.num_layers; ++layer) {
    const std::string attn = "model.layers." + std::to_string(layer) + ".self_attn.";
    auto legacy = first_scale(files, {attn + "kv_scale"});
    if (!legacy) return legacy.err();
    auto k = first_scale(files, {attn + "k_scale", attn + "k_proj.output_scale"});
    if (!k) return k.err();
    auto v = first_scale(files, {attn + "v_scale", attn + "v_proj.output_scale"});
    if (!v) return v.err();
    const std::optional<float> key = *k ? *k : *legacy;
    const std::optional<float> value = *v ? *v : *legacy;
    if (key.has_value() != value.has_value()) {
      return make_error(error_code::corrupt_data, "checkpoint: layer " + std::to_string(layer) +
                                                      " has a KV cache scale for " +
                                                      (key ? "K" : "V") + " only");
    }
    if (key) ++num_found;
    scales.key.push_back(key.value_or(1.0F));
    scales.value.push_back(value.value_or(1.0F));
  }
  if (num_found == 0) return std::optional<kv_cache_scales>{};
  if (num_found != config.num_layers) {
    return make_error(error_code::corrupt_data, "checkpoint: " + std::to_string(num_found) +
                                                    " of " + std::to_string(config.num_layers) +
                                                    " layers have KV cache scales");
  }
  return std::optional<kv_cache_scales>(std::move(scales));
}

}  // namespace pagedserve
