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
#include <span>
#include <string>
#include <vector>

#include "common/result.h"
#include "runtime/model/model_config.h"

namespace pagedserve {

struct host_tensor {
  std::string name;
  weight_dtype dtype = weight_dtype::f32;
  std::vector<std::int64_t> shape;   // row-major, as stored (PyTorch [out, in] for Linear)
  std::span<const std::byte> bytes;  // numel * element size, valid while the checkpoint lives

  [[nodiscard]] std::int64_t numel() const;
};

class checkpoint {
 public:
  // Looks a tensor up by its HF name; nullptr when absent.
  [[nodiscard]] const host_tensor* find(const std::string& name) const;
  [[nodiscard]] const std::map<std::string, host_tensor>& tensors() const { return tensors_; }

  // Used by loaders: `keep_alive` owns the memory `tensor.bytes` points into.
  void add(host_tensor tensor, std::shared_ptr<const void> keep_alive);

 private:
  std::map<std::string, host_tensor> tensors_;
  std::vector<std::shared_ptr<const void>> storage_;
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
