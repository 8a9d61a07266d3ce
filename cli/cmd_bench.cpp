// pagedserve bench offline: offline throughput through the whole engine. Every request of a
// workload (JSONL of prompt token ids + max_tokens) is submitted at once to the embeddable
// engine (actors/engine.h), greedy and ignoring EOS, and the command waits for every final.
// It prints wall time, tokens/s and the engine's step statistics, host and device time per
// step (--backend cuda), and each --peer reference figure with the ratio measured / peer;
// --compare-static then runs the same requests through the static-batching baseline
// (sim/static_batch_baseline.h, CPU only) in the same KV memory and prints the
// ratio. The figures and their output are bench_offline_report.h; docs/bench-offline.md
// explains each one. Exit status: 0; 1 when the run or its checks fail; 2 for a bad --peer,
// --gpu-memory-utilization 0 or --compare-static off the CPU (CLI11's own codes for the
// command-line errors it finds itself). `pagedserve bench grammar` is cmd_bench_grammar.h.

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>

#include <boost/json.hpp>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "actors/engine.h"
#include "cli/bench_offline_report.h"
#include "cli/cmd_bench_grammar.h"
#include "cli/command.h"
#include "cli/engine_flags.h"
#include "runtime/engine/model_loading.h"
#include "runtime/model/checkpoint.h"
#include "sim/static_batch_baseline.h"
#include "sim/workload.h"

namespace pagedserve::cli {
namespace {

using sim::run_static_baseline;
using sim::static_baseline_config;
using sim::workload_request;
using clock_type = std::chrono::steady_clock;

struct bench_options {
  engine_config engine;
  std::string workload_path;
  std::optional<std::size_t> limit;
  double length_scale = 1.0;
  bool no_prefix_caching = false;
  bool compare_static = false;
  bool json = false;
  std::vector<std::string> peer_args;  // as written; parsed into `peers` after CLI11
  std::vector<peer_figure> peers;
};

void add_options(CLI::App& app, bench_options& opt) {
  add_engine_flags(app, opt.engine,
                   {"model", "model_config", "load_format", "quantization", "backend", "dtype",
                    "gpu_memory_utilization", "enforce_eager", "block_size", "num_blocks",
                    "max_num_seqs", "max_num_batched_tokens", "max_model_len", "kv_cache_dtype",
                    "cpu_activation_dtype", "speculative_config"});
  app.footer("--max-model-len defaults to the workload's longest prompt + max_tokens.");
  app.add_option("--workload", opt.workload_path, "JSONL: prompt_token_ids, max_tokens")
      ->required();
  app.add_flag("--no-prefix-caching", opt.no_prefix_caching);
  app.add_option("--limit", opt.limit, "run only the first N requests");
  app.add_option("--length-scale", opt.length_scale,
                 "scale prompt lengths (truncating) and max_tokens by F in (0, 1]")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  app.add_flag("--compare-static", opt.compare_static,
               "also run the static-batching baseline in the same KV memory (cpu only)");
  app.add_option("--peer", opt.peer_args,
                 "NAME=TOKENS_PER_S: a reference output tokens/s printed beside the measured "
                 "one with the ratio measured / peer (repeatable)")
      ->allow_extra_args(false);  // one value per --peer
  app.add_flag("--json", opt.json, "print one JSON object");
}

// The checks across flags that CLI11 cannot make; an error is a bad command line (exit 2).
status check_command_line(bench_options& opt) {
  for (const std::string& text : opt.peer_args) {
    auto peer = parse_peer(text);
    if (!peer) return peer.err();
    opt.peers.push_back(std::move(*peer));
  }
  if (opt.compare_static && opt.engine.backend != "cpu") {
    return make_error(error_code::invalid_argument,
                      "--compare-static runs the static baseline on the CPU forward: it needs "
                      "--backend cpu, got " +
                          opt.engine.backend);
  }
  return status::success();
}

std::uint32_t scaled(std::size_t n, double f) {
  return static_cast<std::uint32_t>(std::max(1.0, std::round(static_cast<double>(n) * f)));
}

// --limit, --length-scale and the vocabulary mapping (id % vocab_size), in that order.
result<std::vector<workload_request>> shape_workload(std::vector<workload_request> reqs,
                                                     const bench_options& opt,
                                                     std::int64_t vocab_size) {
  if (opt.limit && *opt.limit < reqs.size()) reqs.resize(*opt.limit);
  if (reqs.empty()) return make_error(error_code::invalid_argument, "the workload has no requests");
  for (std::size_t i = 0; i < reqs.size(); ++i) {
    workload_request& r = reqs[i];
    if (r.prompt_token_ids.empty() || r.max_tokens == 0) {
      return make_error(error_code::invalid_argument, "request " + std::to_string(i + 1) +
                                                          " has an empty prompt or max_tokens 0");
    }
    r.prompt_token_ids.resize(scaled(r.prompt_token_ids.size(), opt.length_scale));
    r.max_tokens = scaled(r.max_tokens, opt.length_scale);
    for (token_id& id : r.prompt_token_ids) {
      if (id < 0)
        return make_error(error_code::invalid_argument, "negative token id in the workload");
      id = static_cast<token_id>(id % vocab_size);
    }
  }
  return reqs;
}

std::uint32_t longest_request(const std::vector<workload_request>& reqs) {
  std::size_t longest = 0;
  for (const workload_request& r : reqs)
    longest = std::max(longest, r.prompt_token_ids.size() + r.max_tokens);
  return static_cast<std::uint32_t>(longest);
}

// What the callbacks saw of one request.
struct request_outcome {
  std::uint64_t num_tokens = 0;
  std::optional<request_final> final;
};

struct engine_run {
  double wall_s = 0.0;
  std::vector<request_outcome> outcomes;
  engine_stats stats;
  shutdown_report shutdown;
};

// Collects callbacks from the engine's threads; the main thread waits on `done_`.
class completion_tracker {
 public:
  explicit completion_tracker(std::size_t n) : outcomes_(n) {}

  engine_callback callback_for(std::size_t i) {
    return [this, i](const engine_event& ev) {
      std::lock_guard lock(mutex_);
      if (const auto* chunk = std::get_if<token_chunk>(&ev)) {
        outcomes_[i].num_tokens += chunk->token_ids.size();
        return;
      }
      const auto* final = std::get_if<request_final>(&ev);
      if (final == nullptr) return;  // lifecycle events: never asked for here
      outcomes_[i].final = *final;
      if (++num_finals_ == outcomes_.size()) {
        end_ = clock_type::now();
        done_.notify_all();
      }
    };
  }
  // Waits for every request's final; returns when the last one came.
  clock_type::time_point wait() {
    std::unique_lock lock(mutex_);
    done_.wait(lock, [&] { return num_finals_ == outcomes_.size(); });
    return end_;
  }
  std::vector<request_outcome> take() {
    std::lock_guard lock(mutex_);
    return std::move(outcomes_);
  }

 private:
  std::mutex mutex_;
  std::condition_variable done_;
  std::vector<request_outcome> outcomes_;
  std::size_t num_finals_ = 0;
  clock_type::time_point end_;
};

generation_request to_generation(const workload_request& r) {
  generation_request g;
  g.prompt_token_ids = r.prompt_token_ids;
  g.sampling.max_tokens = r.max_tokens;
  g.sampling.temperature = 0.0f;
  g.sampling.ignore_eos = true;
  return g;
}

result<engine_run> run_engine(const engine_config& config,
                              const std::vector<workload_request>& reqs) {
  completion_tracker tracker(reqs.size());  // outlives the engine, whose threads call it
  auto started = engine::start(config);
  if (!started) return make_error(started.err().code, "engine start: " + started.err().message);
  engine& e = **started;
  const auto start = clock_type::now();
  for (std::size_t i = 0; i < reqs.size(); ++i) {
    auto id = e.submit(to_generation(reqs[i]), tracker.callback_for(i));
    if (!id) {
      e.shutdown(std::chrono::milliseconds(0));  // cancels what was submitted
      return make_error(id.err().code,
                        "request " + std::to_string(i + 1) + " rejected: " + id.err().message);
    }
  }
  const auto end = tracker.wait();
  engine_run run;
  run.wall_s = std::chrono::duration<double>(end - start).count();
  run.stats = e.stats();
  run.shutdown = e.shutdown(std::chrono::seconds(10));
  run.outcomes = tracker.take();
  return run;
}

// Every request must end by length with exactly its max_tokens tokens.
status check_outcomes(const engine_run& run, const std::vector<workload_request>& reqs) {
  for (std::size_t i = 0; i < reqs.size(); ++i) {
    const request_outcome& o = run.outcomes[i];
    const std::string which = "request " + std::to_string(i + 1) + ": ";
    if (!o.final) return make_error(error_code::internal, which + "no final");
    if (o.final->reason != finish_reason::length) {
      return make_error(error_code::internal, which + "finished by " +
                                                  std::string(to_string(o.final->reason)) + " " +
                                                  o.final->error_message + ", not length");
    }
    if (o.num_tokens != reqs[i].max_tokens ||
        o.final->usage.completion_tokens != reqs[i].max_tokens) {
      return make_error(error_code::internal,
                        which + std::to_string(o.num_tokens) + " tokens streamed, " +
                            std::to_string(o.final->usage.completion_tokens) + " counted, " +
                            std::to_string(reqs[i].max_tokens) + " asked");
    }
  }
  if (run.shutdown.num_leaked_blocks != 0) {
    return make_error(error_code::internal,
                      std::to_string(run.shutdown.num_leaked_blocks) + " KV blocks leaked");
  }
  return status::success();
}

// The "config" object of the JSON output (num_blocks: the pool the engine sized).
boost::json::object config_json(const bench_options& opt, const model_config& model,
                                const engine_config& config, std::uint64_t num_total_blocks) {
  const sched::scheduler_config& s = config.sched;
  return {{"model", model.name},
          {"backend", config.backend},
          {"dtype", config.dtype},
          {"gpu_memory_utilization", config.gpu_memory_utilization},
          {"enforce_eager", config.enforce_eager},
          {"workload", opt.workload_path},
          {"length_scale", opt.length_scale},
          {"block_size", s.block_size},
          {"num_blocks", num_total_blocks},
          {"max_num_seqs", s.max_num_seqs},
          {"max_num_batched_tokens", s.max_num_batched_tokens},
          {"max_model_len", s.max_model_len},
          {"prefix_caching", s.enable_prefix_caching}};
}

int fail(const std::string& message) {
  spdlog::error("{}", message);
  return 1;
}

int run_offline(const bench_options& opt_in) {
  bench_options opt = opt_in;
  opt.engine.sched.enable_prefix_caching = !opt.no_prefix_caching;
  if (!(opt.length_scale > 0.0)) return fail("--length-scale must be in (0, 1]");
  auto model = load_engine_model_config(opt.engine);
  if (!model) return fail("cannot load the model config: " + model.err().message);
  auto loaded = sim::load_workload(opt.workload_path);
  if (!loaded) return fail(loaded.err().message);
  auto reqs = shape_workload(std::move(*loaded), opt, model->vocab_size);
  if (!reqs) return fail(opt.workload_path + ": " + reqs.err().message);
  if (opt.engine.sched.max_model_len == 0) opt.engine.sched.max_model_len = longest_request(*reqs);

  auto run = run_engine(opt.engine, *reqs);
  if (!run) return fail(run.err().message);
  const auto config = config_json(opt, *model, opt.engine, run->stats.num_total_blocks);
  if (const status s = check_outcomes(*run, *reqs); !s) return fail(s.err().message);
  const offline_figures f = engine_figures(run->wall_s, run->stats, *reqs);

  std::optional<static_baseline_report> fixed;
  if (opt.compare_static) {
    auto weights = load_engine_weights(opt.engine, *model);
    if (!weights) return fail("cannot load the weights: " + weights.err().message);
    const static_baseline_config c{*model, *weights, opt.engine.sched.max_num_seqs,
                                   run->stats.num_total_blocks * opt.engine.sched.block_size,
                                   opt.engine.sched.block_size};
    auto r = run_static_baseline(c, *reqs);
    if (!r) return fail(r.err().message);
    fixed = std::move(*r);
  }
  if (!opt.json) {
    print_table(config, f, run->stats, opt.peers, fixed);
    return 0;
  }
  boost::json::object out{{"config", config},
                          {"engine", to_json(f, run->stats, run->shutdown.num_leaked_blocks)},
                          {"peers", to_json(opt.peers, f)}};
  if (fixed) {
    out["static"] = to_json(*fixed);
    out["continuous_over_static"] = ratio(f.output_tokens_per_s, fixed->output_tokens_per_s);
  }
  std::printf("%s\n", boost::json::serialize(out).c_str());
  return 0;
}

int run_bench(int argc, char** argv) {
  spdlog::set_default_logger(spdlog::stderr_color_mt("bench"));
  CLI::App app("Benchmarks through the whole engine", "pagedserve bench");
  app.require_subcommand(1);
  CLI::App* offline = app.add_subcommand(
      "offline", "submit a whole workload at once and measure throughput (greedy, ignore EOS)");
  bench_options opt;
  opt.engine.sched.max_model_len = 0;  // 0 until parsed: the workload's longest request
  add_options(*offline, opt);
  CLI::App* grammar = app.add_subcommand(
      "grammar", "structured-outputs grammar compile and mask time, beside xgrammar (WASM)");
  bench_grammar_options grammar_opt;
  add_bench_grammar_options(*grammar, grammar_opt);
  CLI11_PARSE(app, argc, argv);
  if (grammar->parsed()) return run_bench_grammar(grammar_opt);
  if (const status s = check_command_line(opt); !s) {
    std::fprintf(stderr, "pagedserve bench offline: %s\n", s.err().message.c_str());
    return 2;
  }
  return run_offline(opt);
}

const command_registration registration{
    {"bench", "offline throughput (vs static batching, --peer); grammar mask time (vs xgrammar)",
     &run_bench}};

}  // namespace
}  // namespace pagedserve::cli
