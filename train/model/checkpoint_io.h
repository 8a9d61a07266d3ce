#pragma once
// checkpoint_io: what the trainer writes and reads back.
//   model.safetensors + config.json + generation_config.json: a HF folder the engine loads
//   like any hub model (weights in bf16 or fp32, tied embeddings: no lm_head);
//   training_state.safetensors + training_state.json: fp32 weights and AdamW's moments, the
//   step and the data sampler's state, to resume exactly where a run stopped.

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "common/result.h"
#include "train/model/parameters.h"

namespace pagedserve::train {

struct named_buffer {
  std::string prefix;  // prepended to every tensor's name ("" for the weights)
  const std::vector<float>* values = nullptr;
};

// A safetensors file with every tensor of `layout`, for each buffer, in `dtype` ("F32" or
// "BF16", rounded to nearest even). Written to a temporary name, then renamed.
[[nodiscard]] status write_safetensors(const std::filesystem::path& path,
                                       const parameter_layout& layout,
                                       const std::vector<named_buffer>& buffers,
                                       const std::string& dtype);

// Reads every tensor of `layout` under `prefix` from a safetensors file (F32, or BF16 widened
// exactly) into `values`.
[[nodiscard]] status read_safetensors(const std::filesystem::path& path,
                                      const parameter_layout& layout, const std::string& prefix,
                                      std::vector<float>& values);

// Writes `text` to path through a temporary file and a rename.
[[nodiscard]] status write_text_file(const std::filesystem::path& path, const std::string& text);

}  // namespace pagedserve::train
