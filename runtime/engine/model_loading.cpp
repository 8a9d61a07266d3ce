#include "runtime/engine/model_loading.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>

#include "runtime/engine/built_in_model.h"
#include "runtime/model/demo_model.h"
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

}  // namespace

result<model_config> load_engine_model_config(const engine_config& config) {
  if (!config.model_config_file.empty()) return read_config_file(config.model_config_file);
  if (uses_random_demo_model(config)) return demo_model_config();
  auto folder = resolved_model_dir(config);
  if (!folder) return folder.err();
  return load_model_config(*folder);
}

result<std::shared_ptr<const checkpoint>> load_engine_weights(const engine_config& config,
                                                              const model_config& model) {
  auto folder = resolved_model_dir(config);
  if (!folder) return folder.err();
  if (folder->empty() || config.load_format == "dummy") {
    return std::make_shared<const checkpoint>(make_dummy_checkpoint(model, config.weights_seed));
  }
  auto weights = load_safetensors_checkpoint(*folder, model);
  if (!weights) return weights.err();
  return std::make_shared<const checkpoint>(std::move(*weights));
}

result<loaded_model> load_engine_model(const engine_config& config) {
  auto model = load_engine_model_config(config);
  if (!model) return model.err();
  auto weights = load_engine_weights(config, *model);
  if (!weights) return weights.err();
  auto tok = load_tokenizer(config);
  if (!tok) return tok.err();
  loaded_model out;
  out.eos_token_ids = merged_eos(*model, tok->get());
  out.config = std::move(*model);
  out.weights = std::move(*weights);
  out.tok = std::move(*tok);
  return out;
}

}  // namespace pagedserve
