#pragma once
// quant_spec: how a checkpoint's linear layers are quantized, parsed once from config.json's
// `quantization_config` (or the legacy quantize_config.json / quant_config.json beside it).
// The formats and their traps: docs/design/QUANTIZATION.md. What we cannot load exactly
// is refused here, naming the file, the field and the value: never a silent fallback.
//
// Methods (vLLM's names):
//   awq                 AutoAWQ GEMM, 4 bits, group 32/64/128 (or -1), zero points
//   gptq                AutoGPTQ / GPTQModel, 4 or 8 bits, sym or asym, desc_act (g_idx),
//                       checkpoint_format/format gptq (stored zeros - 1) or gptq_v2
//   fp8                 HF FineGrainedFP8 (DeepSeek-V3, Qwen3-FP8): block weights, dynamic
//                       activations; or per-tensor weight_scale (+ static input_scale)
//   compressed-tensors  llm-compressor: float-quantized W8A8-FP8 (tensor/channel/block
//                       weights; static per-tensor or dynamic per-token/group activations)
//                       and naive-quantized FP8 weight-only

#include <boost/json/object.hpp>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace pagedserve::quant {

enum class quant_method { none, awq, gptq, fp8, compressed_tensors };

// How weight scales are laid out (fp8 methods; awq and gptq are always `group`).
enum class scale_strategy { tensor, channel, block, group };

// How activations are quantized on hardware that computes in fp8 (the CPU keeps them in
// fp32 and computes W8A16, as vLLM does on GPUs without fp8).
enum class activation_scheme {
  none,               // weight-only
  dynamic_per_token,  // scale = max|row| / 448 at run time
  dynamic_per_group,  // per 1 x group_size (HF fp8 block checkpoints: 128)
  static_per_tensor,  // a stored input_scale
};

struct quant_spec {
  quant_method method = quant_method::none;
  std::string source;  // the file it was read from, for messages

  // awq / gptq
  int bits = 0;                         // 4 (awq); 4 or 8 (gptq)
  std::int64_t group_size = -1;         // inputs per scale; -1: the whole row is one group
  bool has_zero_points = true;          // awq zero_point; gptq !sym (sym stores the midpoint)
  bool desc_act = false;                // gptq act-order: g_idx is read, not k / group_size
  bool zeros_stored_minus_one = false;  // gptq v1 (checkpoint_format "gptq")
  bool lm_head_quantized = false;       // gptq lm_head: true

  // fp8 / compressed-tensors
  scale_strategy weight_strategy = scale_strategy::group;
  std::int64_t weight_block_rows = 0;  // strategy block: [rows, cols] (HF: weight_block_size)
  std::int64_t weight_block_cols = 0;
  activation_scheme activations = activation_scheme::none;
  std::int64_t activation_group_size = 0;  // dynamic_per_group

  // Modules left in the checkpoint's float dtype: exact module names ("lm_head",
  // "model.layers.0.mlp.down_proj"), and regexes (compressed-tensors "re:" entries, without
  // the prefix; ECMAScript, matched from the start of the module name as Python's re.match
  // does, so a pattern need not cover the whole name). awq's modules_to_not_convert match
  // as substrings of the module name (as vLLM and AutoAWQ match them).
  std::vector<std::string> ignored_modules;
  std::vector<std::string> ignored_patterns;
  std::vector<std::string> ignored_substrings;

  // Whether `module` (e.g. "model.layers.3.self_attn.q_proj", "lm_head") is stored quantized.
  // The lm_head is quantized only where the method says so (gptq lm_head: true); embeddings
  // never are.
  [[nodiscard]] bool quantizes(std::string_view module) const;
};

// The name users see: "awq", "gptq", "fp8", "compressed-tensors", "none".
[[nodiscard]] std::string_view to_string(quant_method method);

// Parses one quantization_config object; `source` starts every message.
[[nodiscard]] result<quant_spec> parse_quant_spec(const boost::json::object& config,
                                                  std::string_view source);

// The spec of a HF folder: config.json's quantization_config, else quantize_config.json,
// else quant_config.json; nullopt when none says anything (a 16/32-bit checkpoint).
[[nodiscard]] result<std::optional<quant_spec>> load_quant_spec(
    const std::filesystem::path& model_dir);

}  // namespace pagedserve::quant
