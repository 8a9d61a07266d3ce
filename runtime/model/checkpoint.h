#pragma once
// checkpoint: the weights of a model as host tensors, named as HF names them
// ("model.layers.3.self_attn.q_proj.weight"). Produced by the safetensors loader (bytes
// point into read-only mmaps the checkpoint keeps alive) or by the dummy initialiser
// (bytes owned by the checkpoint). Backends read it once to build their own weights.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/result.h"
#include "runtime/model/model_config.h"

namespace pagedserve {
namespace quant {
struct quantized_linear;  // runtime/quant/quantized_linear.h
}

struct host_tensor {
  std::string name;
  weight_dtype dtype = weight_dtype::f32;
  std::vector<std::int64_t> shape;   // row-major, as stored (PyTorch [out, in] for Linear)
  std::span<const std::byte> bytes;  // numel * element size, valid while the checkpoint lives

  [[nodiscard]] std::int64_t numel() const;
};

// Per-layer scales of an fp8 KV cache (runtime/model/kv_scales.h).
struct kv_cache_scales {
  std::vector<float> key;
  std::vector<float> value;
};

class checkpoint {
 public:
  // Looks a tensor up by its HF name; nullptr when absent.
  [[nodiscard]] const host_tensor* find(const std::string& name) const;
  [[nodiscard]] const std::map<std::string, host_tensor>& tensors() const { return tensors_; }

  // Used by loaders: `keep_alive` owns the memory `tensor.bytes` points into.
  void add(host_tensor tensor, std::shared_ptr<const void> keep_alive);

  // Quantized linear layers by weight name ("model.layers.0.mlp.up_proj.weight": the name
  // the dense weight would have), in place of a host_tensor of that name.
  [[nodiscard]] const quant::quantized_linear* find_quantized(const std::string& name) const;
  void add_quantized(std::string name, std::shared_ptr<const quant::quantized_linear> layer);
  [[nodiscard]] bool has_quantized_layers() const { return !quantized_.empty(); }

  // The checkpoint's KV cache scales, when it has them.
  [[nodiscard]] const std::optional<kv_cache_scales>& kv_scales() const { return kv_scales_; }
  void set_kv_scales(std::optional<kv_cache_scales> scales) { kv_scales_ = std::move(scales); }

 private:
  std::map<std::string, host_tensor> tensors_;
  std::map<std::string, std::shared_ptr<const quant::quantized_linear>> quantized_;
  std::vector<std::shared_ptr<const void>> storage_;
  std::optional<kv_cache_scales> kv_scales_;
};

// Loads model.safetensors or the shards of model.safetensors.index.json from `dir` and
// validates every tensor against `config` (names, dtypes, shapes, offsets, file sizes).
[[nodiscard]] result<checkpoint> load_safetensors_checkpoint(const std::filesystem::path& dir,
                                                             const model_config& config);

// Seeded random weights of the right names and shapes for `config` (vLLM's dummy format).
[[nodiscard]] checkpoint make_dummy_checkpoint(const model_config& config, std::uint64_t seed);

// Widens one element type to fp32 (bf16/f16/f32 source); `out.size()` == tensor.numel().
void convert_to_f32(const host_tensor& tensor, std::span<float> out);

}  // namespace pagedserve
