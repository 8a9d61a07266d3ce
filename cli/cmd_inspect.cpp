// pagedserve inspect: reads a model description (and optionally its weights) and prints what
// the engine will run, or the loader's error. Checks a checkpoint folder without a backend.
//   pagedserve inspect --model DIR          config.json + safetensors, fully validated
//   pagedserve inspect --model-config FILE  a config.json alone (e.g. config/models/*.json)
//   pagedserve inspect                      the built-in demo model
// --dummy builds dummy weights instead of reading safetensors (and times it).

#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "cli/command.h"
#include "runtime/engine/built_in_model.h"
#include "runtime/model/checkpoint.h"
#include "runtime/model/demo_model.h"
#include "runtime/model/dtype.h"
#include "runtime/model/safetensors_file.h"
#include "runtime/model/weight_names.h"

namespace pagedserve::cli {
namespace {

struct inspect_options {
  std::string model_dir;
  std::string model_config_file;
  bool dummy = false;
  bool list_tensors = false;
};

const char* rope_name(rope_kind kind) {
  switch (kind) {
    case rope_kind::standard:
      return "default";
    case rope_kind::linear:
      return "linear";
    case rope_kind::llama3:
      return "llama3";
  }
  return "?";
}

// The built-in names as the engine reads them: pagedserve-demo (or nothing) is the shipped
// folder, demo-random the in-memory model (here: an empty model_dir).
int resolve_built_in_names(inspect_options& opt) {
  engine_config names;
  names.model_dir = opt.model_dir;
  names.model_config_file = opt.model_config_file;
  auto folder = resolved_model_dir(names);
  if (!folder) {
    std::fprintf(stderr, "pagedserve inspect: %s\n", folder.err().message.c_str());
    return 1;
  }
  opt.model_dir = folder->string();
  return 0;
}

result<model_config> read_config(const inspect_options& opt) {
  if (!opt.model_dir.empty()) return load_model_config(opt.model_dir);
  if (opt.model_config_file.empty()) return demo_model_config();
  std::ifstream in(opt.model_config_file);
  if (!in) return make_error(error_code::not_found, opt.model_config_file + ": cannot open");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_model_config(text.str(), opt.model_config_file);
}

void print_config(const model_config& c) {
  std::int64_t num_params = 0;
  for (const tensor_spec& spec : expected_tensors(c)) {
    std::int64_t numel = 1;
    for (std::int64_t extent : spec.shape) numel *= extent;
    num_params += numel;
  }
  std::printf("model        %s (%s)\n", c.name.empty() ? "-" : c.name.c_str(),
              c.model_type.c_str());
  std::printf("shape        %lld layers, hidden %lld, intermediate %lld, vocab %lld\n",
              static_cast<long long>(c.num_layers), static_cast<long long>(c.hidden_size),
              static_cast<long long>(c.intermediate_size), static_cast<long long>(c.vocab_size));
  std::printf("attention    %lld heads, %lld kv heads, head_dim %lld%s%s%s\n",
              static_cast<long long>(c.num_heads), static_cast<long long>(c.num_kv_heads),
              static_cast<long long>(c.head_dim), c.qkv_bias ? ", qkv bias" : "",
              c.o_proj_bias ? ", o bias" : "", c.qk_norm ? ", q/k norm" : "");
  if (c.moe.enabled()) {
    std::printf("experts      %lld, top %lld, expert size %lld%s%s\n",
                static_cast<long long>(c.moe.num_experts), static_cast<long long>(c.moe.top_k),
                static_cast<long long>(c.moe.expert_intermediate_size),
                c.moe.renormalize ? ", renormalised" : "",
                c.moe.has_shared_expert() ? ", shared expert" : "");
  }
  std::printf("rope         %s, theta %g, factor %g\n", rope_name(c.rope.kind), c.rope.theta,
              c.rope.factor);
  std::printf("context      %lld positions\n", static_cast<long long>(c.max_position_embeddings));
  std::printf("weights      %s, %.3f B parameters, %s embeddings\n",
              std::string(to_string(c.dtype)).c_str(), static_cast<double>(num_params) * 1e-9,
              c.tie_word_embeddings ? "tied" : "untied");
  std::string eos;
  for (token_id id : c.eos_token_ids) eos += (eos.empty() ? "" : ",") + std::to_string(id);
  std::printf("tokens       bos %s, eos %s\n",
              c.bos_token_id ? std::to_string(*c.bos_token_id).c_str() : "-",
              eos.empty() ? "-" : eos.c_str());
}

int inspect_weights(const inspect_options& opt, const model_config& config) {
  const auto start = std::chrono::steady_clock::now();
  result<checkpoint> weights = opt.dummy || opt.model_dir.empty()
                                   ? result<checkpoint>(make_dummy_checkpoint(config, 0))
                                   : load_safetensors_checkpoint(opt.model_dir, config);
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (!weights) {
    std::fprintf(stderr, "pagedserve inspect: %s\n", weights.err().message.c_str());
    return 1;
  }
  std::size_t num_bytes = 0;
  for (const auto& [name, tensor] : weights->tensors()) {
    num_bytes += tensor.bytes.size();
    if (opt.list_tensors) {
      std::printf("  %-56s %-8s %s\n", name.c_str(), std::string(to_string(tensor.dtype)).c_str(),
                  shape_to_string(tensor.shape).c_str());
    }
  }
  std::printf("checkpoint   %zu tensors, %.1f MiB, %s in %.0f ms\n", weights->tensors().size(),
              static_cast<double>(num_bytes) / (1024.0 * 1024.0),
              opt.dummy || opt.model_dir.empty() ? "dummy weights made" : "validated", ms);
  return 0;
}

int run_inspect(int argc, char** argv) {
  CLI::App app("Print a model's description and check its weights", "pagedserve inspect");
  inspect_options opt;
  auto* model = app.add_option(
      "--model", opt.model_dir,
      "HF checkpoint folder, pagedserve-demo (the default) or demo-random (random weights)");
  app.add_option("--model-config", opt.model_config_file, "a config.json file")->excludes(model);
  app.add_flag("--dummy", opt.dummy, "make dummy weights instead of reading safetensors");
  app.add_flag("--tensors", opt.list_tensors, "list every tensor");
  CLI11_PARSE(app, argc, argv);
  if (const int failed = resolve_built_in_names(opt); failed != 0) return failed;

  result<model_config> config = read_config(opt);
  if (!config) {
    std::fprintf(stderr, "pagedserve inspect: %s\n", config.err().message.c_str());
    return 1;
  }
  print_config(*config);
  if (!opt.model_config_file.empty() && !opt.dummy) return 0;  // no weights to look at
  return inspect_weights(opt, *config);
}

const command_registration registration{
    {"inspect", "print a model's description and validate its checkpoint", &run_inspect}};

}  // namespace
}  // namespace pagedserve::cli
