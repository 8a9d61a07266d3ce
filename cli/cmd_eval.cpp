// pagedserve eval: teacher forcing over a JSONL workload. Reports the model's perplexity on
// every token after the first of each line and, with --reference, how far the model's
// next-token distributions are from the reference's on the same tokens (mean KL, top-1
// agreement, largest logit difference) and the reference's own perplexity. The figures are
// runtime/eval/eval_accumulator.h; docs/eval.md explains each one. Exit status: 0; 2 for bad
// input (a workload that is missing, malformed, empty, out of the vocabulary or too long for
// the context; a reference with another vocabulary; a model folder or config that does not
// exist; a bad flag); 1 when an existing model cannot load (a broken checkpoint, no CUDA).

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>

#include <boost/json.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "cli/command.h"
#include "cli/engine_flags.h"
#include "runtime/eval/eval_model.h"
#include "runtime/eval/eval_run.h"
#include "runtime/eval/eval_tokens.h"
#include "runtime/eval/eval_workload.h"
#include "runtime/eval/unigram_baseline.h"

namespace pagedserve::cli {
namespace {

using eval::eval_model;
using eval::eval_summary;

struct eval_options {
  engine_config engine;
  std::optional<std::int64_t> max_model_len;  // set when --max-model-len was given
  std::string reference_dir;                  // empty: no reference
  std::optional<std::uint64_t> reference_seed;
  std::string workload_path;
  std::optional<std::size_t> max_lines;
  bool wrap_token_ids = false;
  std::string unigram_from;  // a training text: also report the unigram baseline
  bool json = false;
};

// What the run ends with when it cannot go on: the message and the exit status.
struct eval_failure {
  std::string message;
  int exit_status = 2;
};

void add_options(CLI::App& app, eval_options& opt) {
  add_engine_flags(app, opt.engine,
                   {"model", "model_config", "load_format", "quantization", "tokenizer", "seed"});
  app.add_option("--reference", opt.reference_dir,
                 "a second model (HF folder or pagedserve-demo) with the same vocabulary: "
                 "also report mean KL(reference || model), top-1 agreement, max |logit diff|");
  app.add_option("--reference-seed", opt.reference_seed,
                 "seed of the reference's random (demo/dummy) weights; default: --seed");
  app.add_option("--workload", opt.workload_path,
                 "JSONL: one {\"prompt_token_ids\": [...]} or {\"text\": \"...\"} per line")
      ->required();
  app.add_option("--max-lines", opt.max_lines, "score only the first N lines (N >= 1)");
  app.add_flag("--wrap-token-ids", opt.wrap_token_ids,
               "map ids past the vocabulary to id % vocab_size (synthetic workloads such as "
               "bench/nano-256.jsonl) instead of refusing them");
  add_engine_flags(app, opt.engine,
                   {"backend", "dtype", "max_model_len", "block_size", "max_num_batched_tokens",
                    "kv_cache_dtype", "cpu_activation_dtype"});
  app.footer(
      "--max-model-len defaults to the model's max_position_embeddings; a longer line is an "
      "error (lines are not split into windows). --max-num-batched-tokens is the prefill "
      "chunk.");
  app.add_option("--unigram-from", opt.unigram_from,
                 "a text file (one document a line): also report the perplexity of a unigram "
                 "model of the model's tokenizer counted on it (add-one smoothing), on the same "
                 "tokens");
  app.add_flag("--json", opt.json, "print one JSON object on stdout");
}

engine_config reference_engine(const eval_options& opt) {
  engine_config config = opt.engine;
  config.model_dir = opt.reference_dir;
  config.model_config_file.clear();
  config.tokenizer_dir.clear();
  config.load_format = "auto";
  config.quantization = "auto";  // the reference as its checkpoint stores it
  if (opt.reference_seed) config.weights_seed = *opt.reference_seed;
  return config;
}

std::optional<eval_failure> load(const engine_config& config, const char* role,
                                 std::optional<eval_model>& out) {
  auto model = eval::load_eval_model(config);
  if (!model) {
    return eval_failure{std::string("cannot load the ") + role + ": " + model.err().message,
                        exit_status_for(model.err().code)};
  }
  out = std::move(*model);
  return std::nullopt;
}

std::optional<eval_failure> check_same_vocabulary(const eval_model& model,
                                                  const eval_model& reference) {
  const std::int64_t vocab = model.config.vocab_size;
  const std::int64_t ref_vocab = reference.config.vocab_size;
  const bool tokenizers_differ =
      model.tok && reference.tok && model.tok->vocab_size() != reference.tok->vocab_size();
  if (vocab == ref_vocab && !tokenizers_differ) return std::nullopt;
  return eval_failure{"the reference " + reference.config.name + " has another vocabulary (" +
                      std::to_string(ref_vocab) + " logits, the model " + model.config.name + " " +
                      std::to_string(vocab) +
                      (tokenizers_differ ? "; their tokenizers differ in size" : "") +
                      "): eval compares two models on the same tokens only"};
}

std::optional<eval_failure> context_of(const eval_options& opt, const eval_model& model,
                                       const eval_model* reference, std::int64_t& out) {
  auto limit = eval::context_limit(model.config, opt.max_model_len);
  if (!limit) return eval_failure{limit.err().message};
  out = *limit;
  if (reference == nullptr) return std::nullopt;
  auto ref_limit = eval::context_limit(reference->config, opt.max_model_len);
  if (!ref_limit) return eval_failure{"reference: " + ref_limit.err().message};
  out = std::min(out, *ref_limit);
  return std::nullopt;
}

// JSON has no NaN or infinity: such a figure is null.
boost::json::value json_number(double x) {
  return std::isfinite(x) ? boost::json::value(x) : boost::json::value(nullptr);
}

// The unigram baseline's figures, when --unigram-from was given.
struct unigram_figures {
  double perplexity = 0.0;
  std::uint64_t num_counted = 0;
};

void print_json(const eval_options& opt, const eval_model& model, const eval_model* reference,
                const eval_summary& s, const std::optional<unigram_figures>& unigram,
                double elapsed_s) {
  boost::json::object out;
  out["model"] = model.config.name;
  out["workload"] = opt.workload_path;
  out["num_lines"] = s.num_lines;
  out["num_scored_tokens"] = s.num_scored_tokens;
  out["mean_nll"] = json_number(s.mean_nll);
  out["perplexity"] = json_number(s.perplexity);
  if (reference != nullptr && s.reference) {
    out["reference"] = reference->config.name;
    out["reference_mean_nll"] = json_number(s.reference->mean_nll);
    out["reference_perplexity"] = json_number(s.reference->perplexity);
    out["mean_kl"] = json_number(s.reference->mean_kl);
    out["top1_agreement"] = json_number(s.reference->top1_agreement);
    out["max_abs_logit_diff"] = json_number(s.reference->max_abs_logit_diff);
  }
  if (unigram) {
    out["unigram_perplexity"] = json_number(unigram->perplexity);
    out["unigram_counted_tokens"] = unigram->num_counted;
  }
  out["elapsed_s"] = elapsed_s;
  std::printf("%s\n", boost::json::serialize(out).c_str());
}

void print_table(const eval_model& model, const eval_model* reference, const eval_summary& s,
                 const std::optional<unigram_figures>& unigram, double elapsed_s) {
  std::printf("%-22s %s\n", "model", model.config.name.c_str());
  if (reference != nullptr) std::printf("%-22s %s\n", "reference", reference->config.name.c_str());
  std::printf("%-22s %llu\n", "lines", static_cast<unsigned long long>(s.num_lines));
  std::printf("%-22s %llu\n", "scored tokens",
              static_cast<unsigned long long>(s.num_scored_tokens));
  if (!s.reference) {
    std::printf("%-22s %.4f\n%-22s %.6f\n", "perplexity", s.perplexity, "mean nll (nats)",
                s.mean_nll);
  } else {
    const eval::reference_figures& r = *s.reference;
    std::printf("%-22s %14s %14s\n", "", "model", "reference");
    std::printf("%-22s %14.4f %14.4f\n", "perplexity", s.perplexity, r.perplexity);
    std::printf("%-22s %14.6f %14.6f\n", "mean nll (nats)", s.mean_nll, r.mean_nll);
    std::printf("%-22s %.6g\n", "mean KL (nats/token)", r.mean_kl);
    std::printf("%-22s %.6f\n", "top-1 agreement", r.top1_agreement);
    std::printf("%-22s %.6g\n", "max |logit diff|", r.max_abs_logit_diff);
  }
  if (unigram) {
    std::printf("%-22s %.4f (counted on %llu tokens)\n", "unigram perplexity", unigram->perplexity,
                static_cast<unsigned long long>(unigram->num_counted));
  }
  std::printf("%-22s %.2f\n", "elapsed s", elapsed_s);
}

std::optional<eval_failure> unigram_of(const eval_options& opt, const eval_model& model,
                                       std::span<const std::vector<token_id>> tokens,
                                       std::optional<unigram_figures>& out) {
  if (opt.unigram_from.empty()) return std::nullopt;
  if (!model.tok) return eval_failure{"--unigram-from needs a model with a tokenizer"};
  auto baseline =
      eval::unigram_baseline::from_text_file(opt.unigram_from, *model.tok, model.config.vocab_size);
  if (!baseline) return eval_failure{baseline.err().message};
  out = unigram_figures{std::exp(baseline->mean_nll(tokens)), baseline->num_counted()};
  return std::nullopt;
}

std::optional<eval_failure> run(const eval_options& opt) {
  if (opt.max_lines == std::size_t{0}) return eval_failure{"--max-lines must be at least 1"};
  auto lines = eval::read_eval_workload(opt.workload_path, opt.max_lines);
  if (!lines) return eval_failure{lines.err().message};
  std::optional<eval_model> model;
  std::optional<eval_model> reference;
  if (auto failed = load(opt.engine, "model", model)) return failed;
  if (!opt.reference_dir.empty()) {
    if (auto failed = load(reference_engine(opt), "reference", reference)) return failed;
    if (auto failed = check_same_vocabulary(*model, *reference)) return failed;
  }
  const eval_model* ref = reference ? &*reference : nullptr;
  std::int64_t context = 0;
  if (auto failed = context_of(opt, *model, ref, context)) return failed;
  const eval::token_limits limits{model->config.vocab_size, context, opt.wrap_token_ids};
  auto tokens =
      eval::workload_tokens(*lines, {model->tok.get(), ref ? ref->tok.get() : nullptr}, limits);
  if (!tokens) return eval_failure{opt.workload_path + ": " + tokens.err().message};
  std::optional<unigram_figures> unigram;
  if (auto failed = unigram_of(opt, *model, *tokens, unigram)) return failed;

  const auto start = std::chrono::steady_clock::now();
  const eval_summary summary =
      eval::run_eval(*model->forward, ref ? ref->forward.get() : nullptr, *tokens,
                     {opt.engine.sched.block_size, opt.engine.sched.max_num_batched_tokens,
                      *forward::parse_kv_cache_dtype(opt.engine.kv_cache_dtype)});
  const double elapsed_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (opt.json) {
    print_json(opt, *model, ref, summary, unigram, elapsed_s);
  } else {
    print_table(*model, ref, summary, unigram, elapsed_s);
  }
  return std::nullopt;
}

int run_eval_command(int argc, char** argv) {
  spdlog::set_default_logger(spdlog::stderr_color_mt("eval"));
  CLI::App app(
      "Perplexity of a model on a workload by teacher forcing, optionally against a "
      "reference model",
      "pagedserve eval");
  eval_options opt;
  add_options(app, opt);
  CLI11_PARSE(app, argc, argv);
  if (app.count("--max-model-len") > 0) opt.max_model_len = opt.engine.sched.max_model_len;
  if (const auto failed = run(opt)) {
    spdlog::error("{}", failed->message);
    return failed->exit_status;
  }
  return 0;
}

const command_registration registration{
    {"eval", "perplexity (and KL against a reference model) by teacher forcing",
     &run_eval_command}};

}  // namespace
}  // namespace pagedserve::cli
