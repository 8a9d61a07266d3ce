#include "runtime/engine/model_loading.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>

#include "runtime/engine/built_in_model.h"
#include "runtime/model/demo_model.h"
#include "runtime/quant/online_fp8.h"
#include "runtime/quant/quant_description.h"
#include "runtime/quant/quant_spec.h"
#include "runtime/quant/quantized_checkpoint.h"
#include "runtime/tokenizer/demo_tokenizer.h"

namespace pagedserve {
namespace {

result<model_config> read_config_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) return make_error(error_code::io_error, "cannot open model config " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return parse_model_config(text.str(), path);
}

result<std::shared_ptr<const tokenizer>> load_tokenizer(const engine_config& config) {
  if (!config.tokenizer_dir.empty()) return tokenizer::load(config.tokenizer_dir);
  auto folder = resolved_model_dir(config);
  if (!folder) return folder.err();
  if (!folder->empty() && std::filesystem::exists(*folder / "tokenizer.json")) {
    return tokenizer::load(*folder);
  }
  // The random demo model's ids are the demo tokenizer's (same vocab_size, BOS 1, EOS 2).
  if (uses_random_demo_model(config)) return make_demo_tokenizer();
  return std::shared_ptr<const tokenizer>{};
}

std::vector<token_id> merged_eos(const model_config& model, const tokenizer* tok) {
  std::vector<token_id> ids = model.eos_token_ids;
  if (tok != nullptr && tok->specials().eos_token) {
    if (auto id = tok->token_to_id(*tok->specials().eos_token)) ids.push_back(*id);
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

// vLLM's rule: an explicit method must be the checkpoint's own; fp8 may also quantize a
// 16/32-bit checkpoint at load.
status check_requested_quantization(const engine_config& config,
                                    const std::optional<quant::quant_spec>& spec,
                                    const std::filesystem::path& folder) {
  const std::string& wanted = config.quantization;
  if (wanted == "auto") return status::success();
  if (spec) {
    const std::string_view stored = quant::to_string(spec->method);
    if (stored == wanted) return status::success();
    return make_error(error_code::invalid_argument,
                      "quantization " + wanted + " was asked for, but " + spec->source +
                          " says quant_method " + std::string(stored) +
                          " (use auto, or the checkpoint's own method)");
  }
  if (wanted == "fp8") return status::success();
  return make_error(error_code::invalid_argument,
                    "quantization " + wanted + " needs a checkpoint quantized with it, but " +
                        folder.string() +
                        " has no quantization_config (only fp8 can quantize "
                        "a 16/32-bit checkpoint at load)");
}

}  // namespace

result<model_config> load_engine_model_config(const engine_config& config) {
  if (!config.model_config_file.empty()) return read_config_file(config.model_config_file);
  if (uses_random_demo_model(config)) return demo_model_config();
  auto folder = resolved_model_dir(config);
  if (!folder) return folder.err();
  return load_model_config(*folder);
}

result<std::shared_ptr<const checkpoint>> load_engine_weights(const engine_config& config,
                                                              const model_config& model,
                                                              std::string* quantization_out) {
  auto folder = resolved_model_dir(config);
  if (!folder) return folder.err();
  if (folder->empty() || config.load_format == "dummy") {
    if (config.quantization != "auto") {
      return make_error(error_code::invalid_argument,
                        "quantization " + config.quantization +
                            " needs a checkpoint folder (not dummy or built-in random weights)");
    }
    return std::make_shared<const checkpoint>(make_dummy_checkpoint(model, config.weights_seed));
  }
  auto spec = quant::load_quant_spec(*folder);
  if (!spec) return spec.err();
  if (status ok = check_requested_quantization(config, *spec, *folder); !ok) return ok.err();
  auto weights = *spec ? quant::load_quantized_checkpoint(*folder, model, **spec)
                       : load_safetensors_checkpoint(*folder, model);
  if (!weights) return weights.err();
  std::string description = *spec ? quant::describe(**spec) : "none";
  if (!*spec && config.quantization == "fp8") {
    quant::quantize_linears_fp8(model, *weights);
    description = "fp8 (quantized at load: per-channel weights)";
  }
  if (quantization_out != nullptr) *quantization_out = description;
  return std::make_shared<const checkpoint>(std::move(*weights));
}

result<loaded_model> load_engine_model_description(const engine_config& config) {
  auto model = load_engine_model_config(config);
  if (!model) return model.err();
  auto tok = load_tokenizer(config);
  if (!tok) return tok.err();
  loaded_model out;
  auto folder = resolved_model_dir(config);
  if (!folder) return folder.err();
  if (config.generation_config == "auto" && !folder->empty()) {
    auto defaults = load_generation_defaults(*folder);
    if (!defaults) return defaults.err();
    out.sampling_defaults = *defaults;
  }
  if (!folder->empty()) {
    auto embedding = load_embedding_config(*folder);
    if (!embedding) return embedding.err();
    out.embedding = std::move(*embedding);
  }
  out.eos_token_ids = merged_eos(*model, tok->get());
  out.config = std::move(*model);
  out.tok = std::move(*tok);
  return out;
}

result<loaded_model> load_engine_model(const engine_config& config) {
  auto out = load_engine_model_description(config);
  if (!out) return out.err();
  auto weights = load_engine_weights(config, out->config, &out->quantization);
  if (!weights) return weights.err();
  out->weights = std::move(*weights);
  return out;
}

}  // namespace pagedserve
