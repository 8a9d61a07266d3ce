// pagedserve generate: runs one prompt (token ids) through the model and prints the
// generated token ids. Exercises the whole forward path without a server: config, weights,
// backend (cpu, or cuda with --dtype), paged KV cache, sampler. With no model given it runs
// the built-in demo model.

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>

#include <boost/json.hpp>
#include <chrono>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "cli/command.h"
#include "cli/engine_flags.h"
#include "common/num_blocks.h"
#include "kernels/backend_registry.h"
#include "runtime/engine/model_loading.h"
#include "runtime/forward/model_forward.h"
#include "runtime/model/checkpoint.h"
#include "runtime/model/demo_model.h"
#include "runtime/plan/engine_plan.h"
#include "runtime/sampling/logprobs.h"
#include "runtime/sampling/sampler.h"

namespace pagedserve::cli {
namespace {

struct generate_options {
  // model, model_config, load_format, backend, dtype, block_size: the engine's keys.
  engine_config engine;
  std::vector<token_id> prompt_ids;
  std::int64_t max_tokens = 16;
  sampling_params sampling;
  std::optional<std::uint64_t> seed;
  bool ignore_eos = false;
  bool json = false;
  std::optional<std::int32_t> logprobs;  // top-K logprobs per generated token (--json)
};

struct loaded_model {
  model_config config;
  std::shared_ptr<const checkpoint> weights;
};

using clock_type = std::chrono::steady_clock;

double ms_since(clock_type::time_point start) {
  return std::chrono::duration<double, std::milli>(clock_type::now() - start).count();
}

// --model-config FILE: dummy weights; --model DIR: DIR's config, weights per --load-format;
// neither: the demo model. The same resolution as the engine's (runtime/engine).
result<loaded_model> load_model(const generate_options& opt) {
  const engine_config& source = opt.engine;
  if (uses_built_in_model(source)) {
    spdlog::info(
        "running the built-in demo model '{}' (a small Llama trained on the Brown Corpus); "
        "point --model at a HF checkpoint folder (config.json + *.safetensors) to run "
        "a real one",
        built_in_model_name);
  }
  auto config = load_engine_model_config(source);
  if (!config) return config.err();
  auto weights = load_engine_weights(source, *config);
  if (!weights) return weights.err();
  return loaded_model{std::move(*config), std::move(*weights)};
}

status check_request(const generate_options& opt, const model_config& config) {
  if (opt.prompt_ids.empty()) {
    return make_error(error_code::invalid_argument, "--prompt-ids must name at least one token");
  }
  for (token_id id : opt.prompt_ids) {
    if (id < 0 || id >= config.vocab_size) {
      return make_error(error_code::invalid_argument, "prompt token id " + std::to_string(id) +
                                                          " is outside the vocabulary [0, " +
                                                          std::to_string(config.vocab_size) + ")");
    }
  }
  if (opt.max_tokens < 1)
    return make_error(error_code::invalid_argument, "--max-tokens must be >= 1");
  return opt.sampling.validate();
}

struct generation {
  std::vector<token_id> token_ids;
  std::vector<logprobs_result> logprobs;  // per generated token, with --logprobs
  std::string finish_reason = "length";
  double prefill_ms = 0.0;
  double decode_ms = 0.0;
};

generation run_generation(forward::model_forward& fwd, const generate_options& opt) {
  const model_config& config = fwd.config();
  const std::int64_t max_len = static_cast<std::int64_t>(opt.prompt_ids.size()) + opt.max_tokens;
  const std::int64_t block_size = opt.engine.sched.block_size;
  const std::int64_t num_blocks = num_blocks_for(max_len, block_size);
  forward::paged_kv_cache cache(fwd.backend(),
                                forward::kv_cache_layout::for_model(
                                    config, num_blocks, block_size,
                                    *forward::parse_kv_cache_dtype(opt.engine.kv_cache_dtype)));
  std::vector<block_id> table;  // one sequence: blocks 0, 1, 2, ... in order
  for (std::int64_t b = 0; b < num_blocks; ++b) table.emplace_back(static_cast<std::uint32_t>(b));

  std::vector<token_id> tokens = opt.prompt_ids;
  sampler_state state = sampler_state::create(opt.sampling, 0);
  generation gen;
  std::int64_t num_computed = 0;
  auto start = clock_type::now();
  while (true) {
    forward::forward_batch batch;
    batch.sequences.push_back(
        {std::span<const token_id>(tokens).subspan(static_cast<std::size_t>(num_computed)),
         num_computed, table});
    const forward::forward_output out = fwd.run(batch, cache);
    num_computed = static_cast<std::int64_t>(tokens.size());
    const token_id next = sample(out.last(0), opt.sampling, state);
    if (opt.logprobs) gen.logprobs.push_back(compute_logprobs(out.last(0), next, *opt.logprobs));
    (gen.token_ids.empty() ? gen.prefill_ms : gen.decode_ms) += ms_since(start);
    start = clock_type::now();
    gen.token_ids.push_back(next);
    tokens.push_back(next);
    const bool is_eos = std::find(config.eos_token_ids.begin(), config.eos_token_ids.end(), next) !=
                        config.eos_token_ids.end();
    if (is_eos && !opt.ignore_eos) {
      gen.finish_reason = "stop";
      break;
    }
    if (static_cast<std::int64_t>(gen.token_ids.size()) >= opt.max_tokens) break;
  }
  return gen;
}

// vLLM's shape, per generated token: its logprob and rank, and the top-K (token id, logprob).
boost::json::array logprobs_json(const generation& gen) {
  boost::json::array out;
  for (std::size_t i = 0; i < gen.logprobs.size(); ++i) {
    const logprobs_result& r = gen.logprobs[i];
    boost::json::array top;
    for (const token_logprob& t : r.top)
      top.push_back({{"token_id", t.token}, {"logprob", t.logprob}});
    out.push_back({{"token_id", gen.token_ids[i]},
                   {"logprob", r.chosen_logprob},
                   {"rank", r.chosen_rank},
                   {"top_logprobs", std::move(top)}});
  }
  return out;
}

void print_result(const generate_options& opt, const model_config& config, const generation& gen) {
  const auto num_decode = static_cast<double>(gen.token_ids.size() - 1);
  const double decode_tps = gen.decode_ms > 0.0 ? num_decode * 1000.0 / gen.decode_ms : 0.0;
  if (!opt.json) {
    std::string ids;
    for (token_id id : gen.token_ids) {
      if (!ids.empty()) ids += ',';
      ids += std::to_string(id);
    }
    std::printf("%s\n", ids.c_str());
    spdlog::info("{} tokens ({}), prefill {:.1f} ms, decode {:.1f} tokens/s", gen.token_ids.size(),
                 gen.finish_reason, gen.prefill_ms, decode_tps);
    return;
  }
  boost::json::object out;
  out["model"] = config.name;
  out["prompt_token_ids"] = boost::json::value_from(opt.prompt_ids);
  out["token_ids"] = boost::json::value_from(gen.token_ids);
  out["finish_reason"] = gen.finish_reason;
  out["num_prompt_tokens"] = opt.prompt_ids.size();
  out["num_generated_tokens"] = gen.token_ids.size();
  out["prefill_ms"] = gen.prefill_ms;
  out["decode_ms"] = gen.decode_ms;
  out["decode_tokens_per_s"] = decode_tps;
  if (opt.logprobs) out["logprobs"] = logprobs_json(gen);
  std::printf("%s\n", boost::json::serialize(out).c_str());
}

void add_options(CLI::App& app, generate_options& opt) {
  add_engine_flags(app, opt.engine, {"model", "model_config", "load_format", "quantization"});
  app.add_option("--prompt-ids", opt.prompt_ids, "prompt token ids, e.g. 1,2,3")
      ->required()
      ->delimiter(',');
  app.add_option("--max-tokens", opt.max_tokens, "tokens to generate at most");
  app.add_option("--temperature", opt.sampling.temperature, "0 = greedy");
  app.add_option("--top-p", opt.sampling.top_p);
  app.add_option("--top-k", opt.sampling.top_k);
  app.add_option("--seed", opt.seed, "sampling seed");
  app.add_flag("--ignore-eos", opt.ignore_eos, "keep generating past EOS tokens");
  add_engine_flags(app, opt.engine,
                   {"backend", "dtype", "block_size", "kv_cache_dtype", "cpu_activation_dtype"});
  app.add_flag("--json", opt.json, "print one JSON object on stdout");
  app.add_option("--logprobs", opt.logprobs,
                 "with --json: the top-K logprobs of each generated token (log_softmax of the "
                 "raw logits, as vLLM's default)")
      ->check(CLI::Range(0, 20));
}

int run_generate(int argc, char** argv) {
  spdlog::set_default_logger(spdlog::stderr_color_mt("generate"));
  CLI::App app("Generate tokens for one prompt of token ids", "pagedserve generate");
  generate_options opt;
  add_options(app, opt);
  CLI11_PARSE(app, argc, argv);
  opt.sampling.seed = opt.seed;
  if (const status valid = validate(opt.engine); !valid) {
    spdlog::error("{}", valid.err().message);
    return 2;
  }
  if (opt.logprobs && !opt.json) {
    spdlog::error("--logprobs prints its figures in the JSON output: add --json");
    return 2;
  }

  auto model = load_model(opt);
  if (!model) {
    spdlog::error("cannot load the model: {}", model.err().message);
    return exit_status_for(model.err().code);
  }
  if (const status s = check_request(opt, model->config); !s) {
    spdlog::error("{}", s.err().message);
    return 2;
  }
  // dtype auto: float32 on the CPU, the checkpoint's 16-bit type on CUDA (as serve).
  auto made =
      kernels::make_backend(opt.engine.backend, plan_compute_type(opt.engine, model->config),
                            plan_backend_options(opt.engine));
  if (!made) {
    spdlog::error("{}", made.err().message);
    return made.err().code == error_code::invalid_argument ? 2 : 1;
  }
  std::unique_ptr<kernels::backend> backend = std::move(made).value();
  auto weights = forward::upload_model_weights(*backend, model->config, *model->weights);
  if (!weights) {
    spdlog::error("cannot load the weights: {}", weights.err().message);
    return exit_status_for(weights.err().code);
  }
  forward::model_forward fwd(*backend, model->config, std::move(*weights));
  print_result(opt, model->config, run_generation(fwd, opt));
  return 0;
}

const command_registration registration{
    {"generate", "generate tokens for a prompt of token ids (CPU or CUDA forward)", &run_generate}};

}  // namespace
}  // namespace pagedserve::cli
