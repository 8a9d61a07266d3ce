// pagedserve simulate: replays a workload (JSONL of prompt token ids + max_tokens) through
// the real scheduler and KV block pool with a fake model and a step-cost model (see
// sim/simulator.h), and prints what the scheduling did: concurrency, KV
// utilization, preemptions, prefix-cache hits, simulated time. --compare-static runs the
// same workload a second time with static max_model_len reservations and prints both plus
// their ratios in one JSON object.

#include <CLI/CLI.hpp>

#include <cstdio>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cli/command.h"
#include "cli/engine_flags.h"
#include "sim/simulator.h"
#include "sim/workload.h"

namespace pagedserve::cli {
namespace {

using sim::simulation_config;
using sim::simulation_report;

// A flat JSON object written by hand so numbers print as people read them (0.9731, not
// 9.731E-1); nested objects are inserted pre-rendered.
class json_object {
 public:
  json_object& add(const std::string& key, double value) {
    char text[64];
    std::snprintf(text, sizeof text, "%.6g", value);
    return raw(key, text);
  }
  json_object& add(const std::string& key, std::uint64_t value) {
    return raw(key, std::to_string(value));
  }
  json_object& add(const std::string& key, std::uint32_t value) {
    return add(key, std::uint64_t{value});
  }
  json_object& add(const std::string& key, bool value) {
    return raw(key, value ? "true" : "false");
  }
  json_object& add(const std::string& key, const std::string& value) {
    return raw(key, "\"" + value + "\"");  // only our own identifiers: nothing to escape
  }
  json_object& raw(const std::string& key, std::string rendered) {
    fields_.emplace_back(key, std::move(rendered));
    return *this;
  }
  [[nodiscard]] std::string str(int indent = 0) const {
    const std::string pad(static_cast<std::size_t>(indent) + 2, ' ');
    std::string out = "{\n";
    for (std::size_t i = 0; i < fields_.size(); ++i) {
      out += pad + "\"" + fields_[i].first + "\": " + fields_[i].second;
      out += i + 1 < fields_.size() ? ",\n" : "\n";
    }
    return out + std::string(static_cast<std::size_t>(indent), ' ') + "}";
  }

 private:
  std::vector<std::pair<std::string, std::string>> fields_;
};

json_object report_json(const simulation_report& r) {
  json_object o;
  o.add("allocator", r.allocator).add("steps", r.steps).add("completed", r.completed);
  o.add("rejected", r.rejected).add("num_preemptions", r.num_preemptions);
  o.add("peak_running", r.peak_running).add("mean_running", r.mean_running);
  o.add("kv_utilization", r.kv_utilization).add("mean_kv_usage", r.mean_kv_usage);
  o.add("peak_kv_usage", r.peak_kv_usage);
  o.add("prefix_cache_hit_rate", r.prefix_cache_hit_rate);
  o.add("prefix_query_tokens", r.prefix_queries).add("prefix_hit_tokens", r.prefix_hits);
  o.add("leaked_blocks", r.leaked_blocks);
  o.add("prefill_tokens_computed", r.prefill_tokens_computed);
  o.add("decode_tokens_computed", r.decode_tokens_computed);
  o.add("output_tokens", r.output_tokens).add("simulated_time_s", r.simulated_time_s);
  o.add("output_tokens_per_s", r.output_tokens_per_s);
  o.add("mean_ttft_s", r.mean_ttft_s).add("mean_e2e_s", r.mean_e2e_s);
  o.add("protocol_errors", r.protocol_errors);
  return o;
}

json_object config_json(const simulation_config& c, const std::string& workload) {
  json_object o;
  o.add("workload", workload).add("num_blocks", c.sched.num_blocks);
  o.add("block_size", c.sched.block_size).add("max_num_seqs", c.sched.max_num_seqs);
  o.add("max_num_batched_tokens", c.sched.max_num_batched_tokens);
  o.add("max_model_len", c.sched.max_model_len);
  o.add("prefix_caching", c.sched.enable_prefix_caching);
  o.add("chunked_prefill", c.sched.enable_chunked_prefill);
  o.add("policy", std::string(sched::to_string(c.sched.policy)));
  o.add("watermark", c.sched.watermark);
  if (c.arrival_rate) o.add("arrival_rate", *c.arrival_rate);
  o.raw("step_cost", json_object()
                         .add("fixed_s", c.cost.fixed_s)
                         .add("per_token_s", c.cost.per_token_s)
                         .add("per_seq_s", c.cost.per_seq_s)
                         .str(4));
  return o;
}

double ratio(double a, double b) { return b > 0 ? a / b : 0.0; }

json_object ratios_json(const simulation_report& paged, const simulation_report& fixed) {
  json_object o;
  o.add("peak_running", ratio(paged.peak_running, fixed.peak_running));
  o.add("mean_running", ratio(paged.mean_running, fixed.mean_running));
  o.add("kv_utilization", ratio(paged.kv_utilization, fixed.kv_utilization));
  o.add("output_tokens_per_s", ratio(paged.output_tokens_per_s, fixed.output_tokens_per_s));
  o.add("simulated_time_s", ratio(paged.simulated_time_s, fixed.simulated_time_s));
  return o;
}

void print_human(const simulation_report& r) {
  std::printf("%-8s steps %llu, completed %llu, rejected %llu, preemptions %llu\n",
              r.allocator.c_str(), static_cast<unsigned long long>(r.steps),
              static_cast<unsigned long long>(r.completed),
              static_cast<unsigned long long>(r.rejected),
              static_cast<unsigned long long>(r.num_preemptions));
  std::printf("         running peak %u mean %.1f, kv utilization %.4f, prefix hit rate %.4f\n",
              r.peak_running, r.mean_running, r.kv_utilization, r.prefix_cache_hit_rate);
  std::printf("         simulated %.2f s, %.0f output tok/s, leaked blocks %llu\n",
              r.simulated_time_s, r.output_tokens_per_s,
              static_cast<unsigned long long>(r.leaked_blocks));
}

struct simulate_options {
  simulation_config config;
  // The engine keys' flags write here; its scheduler settings become config.sched.
  engine_config engine;
  std::string workload_path;
  std::string prefix_caching = "on";
  std::string chunked_prefill = "on";
  std::string allocator = "paged";
  std::string policy = "fcfs";
  std::optional<double> arrival_rate;
  bool compare_static = false;
  bool json = false;
};

void add_options(CLI::App& app, simulate_options& opt) {
  opt.engine.sched = opt.config.sched;
  sched::scheduler_config& s = opt.engine.sched;
  app.add_option("--workload", opt.workload_path,
                 "JSONL: prompt_token_ids, max_tokens[, arrival_s, priority]")
      ->required()
      ->check(CLI::ExistingFile);
  add_engine_flags(app, opt.engine,
                   {"num_blocks", "block_size", "max_num_seqs", "max_num_batched_tokens",
                    "max_model_len", "long_prefill_token_threshold"});
  app.add_option("--watermark", s.watermark)->capture_default_str();
  const auto on_off = CLI::IsMember({"on", "off"});
  app.add_option("--prefix-caching", opt.prefix_caching)->check(on_off)->capture_default_str();
  app.add_option("--chunked-prefill", opt.chunked_prefill)->check(on_off)->capture_default_str();
  app.add_option("--allocator", opt.allocator)
      ->check(CLI::IsMember({"paged", "static"}))
      ->capture_default_str();
  app.add_option("--policy", opt.policy)
      ->check(CLI::IsMember({"fcfs", "priority"}))
      ->capture_default_str();
  app.add_option("--arrival-rate", opt.arrival_rate,
                 "requests/s, Poisson (default: the workload's arrival_s, else all at 0)");
  app.add_option("--seed", opt.config.seed, "seed of the arrival process")->capture_default_str();
  app.add_option("--step-fixed-s", opt.config.cost.fixed_s)->capture_default_str();
  app.add_option("--step-per-token-s", opt.config.cost.per_token_s)->capture_default_str();
  app.add_option("--step-per-seq-s", opt.config.cost.per_seq_s)->capture_default_str();
  app.add_flag("--compare-static", opt.compare_static,
               "also run static max_model_len reservations; print both and their ratios");
  app.add_flag("--json", opt.json, "print one JSON object");
}

void apply_choices(simulate_options& opt) {
  opt.config.sched = opt.engine.sched;
  opt.config.sched.enable_prefix_caching = opt.prefix_caching == "on";
  opt.config.sched.enable_chunked_prefill = opt.chunked_prefill == "on";
  opt.config.sched.policy = opt.policy == "priority" ? sched::scheduling_policy::priority
                                                     : sched::scheduling_policy::fcfs;
  opt.config.allocator = opt.allocator == "static" ? sim::allocator_kind::static_reservation
                                                   : sim::allocator_kind::paged;
  opt.config.arrival_rate = opt.arrival_rate;
}

void print_results(const simulate_options& opt, const simulation_report& main_run,
                   const std::optional<simulation_report>& static_run) {
  if (!opt.json) {
    print_human(main_run);
    if (static_run) print_human(*static_run);
    return;
  }
  const std::string config = config_json(opt.config, opt.workload_path).str(2);
  if (static_run) {
    json_object out;
    out.raw("config", config);
    out.raw("paged", report_json(main_run).str(2));
    out.raw("static", report_json(*static_run).str(2));
    out.raw("paged_over_static", ratios_json(main_run, *static_run).str(2));
    std::printf("%s\n", out.str().c_str());
    return;
  }
  json_object single = report_json(main_run);
  single.raw("config", config);
  std::printf("%s\n", single.str().c_str());
}

int run_simulate(int argc, char** argv) {
  CLI::App app{"Replay a workload through the scheduler and KV block pool (fake model)"};
  simulate_options opt;
  opt.config.sched.num_blocks = 3125;  // KV room for 50,000 tokens in blocks of 16
  add_options(app, opt);
  CLI11_PARSE(app, argc, argv);
  apply_choices(opt);

  const auto workload = sim::load_workload(opt.workload_path);
  if (!workload) {
    std::fprintf(stderr, "pagedserve simulate: %s\n", workload.err().message.c_str());
    return 1;
  }
  auto run = [&](sim::allocator_kind kind) {
    simulation_config c = opt.config;
    c.allocator = kind;
    return sim::simulate(c, *workload);
  };
  auto main_run = run(opt.compare_static ? sim::allocator_kind::paged : opt.config.allocator);
  if (!main_run) {
    std::fprintf(stderr, "pagedserve simulate: %s\n", main_run.err().message.c_str());
    return 1;
  }
  std::optional<simulation_report> static_run;
  if (opt.compare_static) {
    auto r = run(sim::allocator_kind::static_reservation);
    if (!r) {
      std::fprintf(stderr, "pagedserve simulate: %s\n", r.err().message.c_str());
      return 1;
    }
    static_run = std::move(r).value();
  }
  print_results(opt, *main_run, static_run);
  return 0;
}

const command_registration registration{command{
    "simulate", "replay a workload through the scheduler and KV pool (fake model)", &run_simulate}};

}  // namespace
}  // namespace pagedserve::cli
