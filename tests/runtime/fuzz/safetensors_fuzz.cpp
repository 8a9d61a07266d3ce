// libFuzzer target fuzz_safetensors: a model folder's weight files. An input that starts with
// '{' is model.safetensors.index.json, up to its first NUL, with the rest as the one shard
// file name "model-00001-of-00001.safetensors" (what the seeds' index names); any other
// input is model.safetensors. Each folder is opened (header and index parsers) and loaded
// as a tiny dense checkpoint and as GPTQ and FP8 quantized ones, so the shape, dtype and
// offset checks of every reader run. A refusal is an error value: only a crash, a sanitizer
// report, a leak or an allocation past -malloc_limit_mb is a finding.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include <boost/json.hpp>

#include "runtime/model/checkpoint.h"
#include "runtime/model/checkpoint_files.h"
#include "runtime/model/model_config.h"
#include "runtime/quant/quant_spec.h"
#include "runtime/quant/quantized_checkpoint.h"
#include "tests/runtime/fuzz/fuzz_folder.h"

namespace {

using namespace pagedserve;

// Small enough that a mutated seed can match it: head_dim 4, GPTQ's 8 values per int32.
const model_config& tiny_config() {
  static const model_config config = [] {
    auto parsed = parse_model_config(R"({"model_type": "llama", "vocab_size": 16,
      "hidden_size": 8, "intermediate_size": 16, "num_hidden_layers": 1,
      "num_attention_heads": 2, "max_position_embeddings": 64, "tie_word_embeddings": true})");
    if (!parsed) std::abort();
    return *parsed;
  }();
  return config;
}

quant::quant_spec spec_of(std::string_view json) {
  auto parsed = quant::parse_quant_spec(boost::json::parse(json).as_object(), "fuzz");
  if (!parsed) std::abort();
  return *parsed;
}

// PAGEDSERVE_FUZZ_ECHO=1 prints what each load said (to check what a seed reaches).
template <typename T>
void echo(const char* what, const result<T>& loaded) {
  static const bool enabled = std::getenv("PAGEDSERVE_FUZZ_ECHO") != nullptr;
  if (enabled) std::fprintf(stderr, "%s: %s\n", what, loaded ? "ok" : loaded.err().message.c_str());
}

void load_every_way(const std::filesystem::path& dir) {
  static const quant::quant_spec gptq =
      spec_of(R"({"quant_method": "gptq", "bits": 4, "group_size": 8, "desc_act": false})");
  static const quant::quant_spec fp8 =
      spec_of(R"({"quant_method": "fp8", "activation_scheme": "dynamic"})");
  const result<checkpoint_files> files = checkpoint_files::open(dir);
  echo("open", files);
  if (!files) return;
  echo("dense", load_safetensors_checkpoint(dir, tiny_config()));
  echo("gptq", quant::load_quantized_checkpoint(dir, tiny_config(), gptq));
  echo("fp8", quant::load_quantized_checkpoint(dir, tiny_config(), fp8));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace pagedserve::fuzzing;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  if (input.starts_with('{')) {
    const split_input parts = split_at_nul(input);
    remove_file("model.safetensors");
    write_file("model.safetensors.index.json", parts.first);
    write_file("model-00001-of-00001.safetensors", parts.second);
  } else {
    remove_file("model.safetensors.index.json");
    write_file("model.safetensors", input);
  }
  load_every_way(scratch_folder());
  return 0;
}
