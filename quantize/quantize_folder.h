#pragma once
// quantize_folder: a dense HF checkpoint folder -> the same model as a quantized HF folder in
// one of the real formats (quantize_options.h), by round-to-nearest (no calibration).
//
// Quantized: q/k/v/o_proj and gate/up/down_proj of every layer (and, with lm_head, the
// lm_head: a tied one becomes a quantized copy of the embeddings, tie_word_embeddings false).
// Everything else (embeddings, norms, biases, lm_head) is copied with its dtype and bytes
// unchanged. Written: model.safetensors, config.json (the source's object plus
// "quantization_config") and the tokenizer and generation files.
//
// The dequantized twin (dequantized_out): the same model in fp32, each quantized weight
// replaced by dequantize() of its quantized_linear and every other tensor widened exactly;
// config.json is the source's. A loader of the quantized folder must reproduce it exactly.

#include <cstdint>
#include <filesystem>

#include "common/result.h"
#include "quantize/quantize_options.h"

namespace pagedserve::quantize {

struct quantize_summary {
  std::int64_t num_layers = 0;         // decoder layers
  std::int64_t num_quantized = 0;      // linear weights quantized
  std::int64_t num_copied = 0;         // tensors copied unchanged
  std::int64_t bytes_before = 0;       // tensor bytes of the source
  std::int64_t bytes_after = 0;        // tensor bytes of the quantized model.safetensors
  std::int64_t bytes_dequantized = 0;  // tensor bytes of the twin (0 when not written)
};

// Errors: invalid_argument (options; an output folder that is the source or holds a
// sharded index; a source already quantized), the loader's errors for the source (not_found,
// corrupt_data, unsupported), unsupported (a layer shape the format cannot hold, naming the
// module), io_error. Every quantization error comes before anything is written.
[[nodiscard]] result<quantize_summary> quantize_folder(const std::filesystem::path& model_dir,
                                                       const std::filesystem::path& out_dir,
                                                       const quantize_options& options);

}  // namespace pagedserve::quantize
