#pragma once
// checkpoint_files: the safetensors files of a HF folder (model.safetensors, or every shard
// model.safetensors.index.json names), opened and checked once, and looked up by tensor
// name. Loaders take what they read through find(), which remembers it, so what nobody
// read can be reported as unused afterwards.

#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "common/result.h"
#include "runtime/model/checkpoint.h"
#include "runtime/model/safetensors_file.h"
#include "runtime/model/safetensors_index.h"
#include "runtime/model/weight_names.h"

namespace pagedserve {

struct located_tensor {
  const safetensors_file* file = nullptr;
  const safetensors_entry* entry = nullptr;
  std::string name;

  // "<file>: tensor '<name>' ", the start of every message about it.
  [[nodiscard]] std::string describe() const;
};

class checkpoint_files {
 public:
  [[nodiscard]] static result<checkpoint_files> open(const std::filesystem::path& dir);

  // The tensor, or not_found naming the file (or the index) that should hold it.
  [[nodiscard]] result<located_tensor> find(const std::string& name);
  // Whether the checkpoint has the tensor (nothing is remembered).
  [[nodiscard]] bool contains(const std::string& name) const;
  // Logs one warning for the tensors no find() took (rotary inv_freq buffers aside).
  void warn_about_unused() const;

 private:
  [[nodiscard]] const safetensors_file* file_for(const std::string& name) const;

  std::map<std::string, safetensors_file> files_;
  std::optional<safetensors_index> index_;
  std::set<std::string> taken_;
};

// Checks a float tensor against the config's spec (dtype F32/BF16/F16, shape) and adds it to
// `out`, copying it only when the mapping leaves it misaligned for its element type.
[[nodiscard]] status add_float_tensor(checkpoint& out, const tensor_spec& spec,
                                      const located_tensor& where);

}  // namespace pagedserve
