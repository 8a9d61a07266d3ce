#include "loadtest/app/bench_args.h"

#include <CLI/CLI.hpp>
#include <cstdio>

namespace pagedserve::loadtest {
namespace {

void add_server_options(CLI::App& app, bench_args& a) {
  app.add_option("--base-url", a.base_url, "server URL, e.g. http://127.0.0.1:8000");
  app.add_option("--host", a.host, "server host (without --base-url)");
  app.add_option("--port", a.port, "server port (without --base-url)")->check(CLI::Range(1, 65535));
  app.add_option("--endpoint", a.endpoint, "/v1/completions or /v1/chat/completions")
      ->check(CLI::IsMember({"/v1/completions", "/v1/chat/completions"}));
  app.add_option("--model", a.model, "model name (default: the first of GET /v1/models)");
  app.add_option("--api-key", a.api_key, "bearer token (default: env OPENAI_API_KEY)");
}

void add_workload_options(CLI::App& app, bench_args& a) {
  app.add_option("--dataset-name", a.dataset_name, "jsonl | random | shared-prefix")
      ->check(CLI::IsMember({"jsonl", "random", "shared-prefix"}));
  app.add_option("--dataset-path", a.dataset_path, "JSONL workload file (--dataset-name jsonl)");
  app.add_option("--num-prompts", a.num_prompts, "random: requests (1000); others: a limit")
      ->check(CLI::PositiveNumber);
  app.add_option("--random-input-len", a.random_input_len)->check(CLI::PositiveNumber);
  app.add_option("--random-output-len", a.random_output_len)->check(CLI::PositiveNumber);
  app.add_option("--random-range-ratio", a.random_range_ratio)->check(CLI::Range(0.0, 0.999999));
  app.add_option("--random-prefix-len", a.random_prefix_len);
  app.add_option("--token-id-range", a.token_id_range, "LO:HI, ids drawn from [LO, HI)");
  app.add_option("--shared-prefix-groups", a.shared_prefix_groups)->check(CLI::PositiveNumber);
  app.add_option("--shared-prefix-requests-per-group", a.shared_prefix_requests_per_group)
      ->check(CLI::PositiveNumber);
  app.add_option("--shared-prefix-len", a.shared_prefix_len);
  app.add_option("--shared-prefix-suffix-len", a.shared_prefix_suffix_len);
  app.add_option("--shared-prefix-output-len", a.shared_prefix_output_len)
      ->check(CLI::PositiveNumber);
  app.add_option("--length-scale", a.length_scale, "scale prompt and output lengths, (0, 1]")
      ->check(CLI::Range(1e-9, 1.0));
  app.add_option("--vocab-size", a.vocab_size, "map token ids to id % V")
      ->check(CLI::PositiveNumber);
  app.add_option("--tokenizer", a.tokenizer,
                 "send token-id prompts as text decoded with this tokenizer (a folder with "
                 "tokenizer.json, or demo); needed for chat with generated workloads");
}

void add_traffic_options(CLI::App& app, bench_args& a) {
  app.add_option("--request-rate", a.request_rate, "requests per second, or inf (all at once)");
  app.add_option("--burstiness", a.burstiness, "gamma shape of the gaps; 1 = Poisson")
      ->check(CLI::PositiveNumber);
  app.add_option("--max-concurrency", a.max_concurrency, "most requests in flight; 0 = no limit");
  app.add_option("--num-warmups", a.num_warmups, "requests sent first, one at a time, unmeasured");
  app.add_option("--seed", a.seed, "seed of workloads and arrivals");
  app.add_flag("--ignore-eos", a.ignore_eos, "generate max_tokens tokens every time");
  app.add_option("--temperature", a.temperature)->check(CLI::NonNegativeNumber);
  app.add_option("--extra-body", a.extra_body, "JSON object merged into every request body");
  app.add_option("--request-timeout", a.request_timeout_s, "seconds for a whole request")
      ->check(CLI::PositiveNumber);
  app.add_option("--read-timeout", a.read_timeout_s, "seconds without a byte = timeout")
      ->check(CLI::PositiveNumber);
  app.add_option("--goodput", a.goodput, "SLOs in ms: ttft:500 tpot:50 e2el:2000");
}

void add_output_options(CLI::App& app, bench_args& a) {
  app.add_flag("--json", a.json, "print the result as JSON instead of a table");
  app.add_option("--save-result", a.save_result, "also write the JSON result to this file");
  app.add_flag("--no-progress", a.no_progress, "no progress bar on stderr");
  app.add_option("--plot-dir", a.plot_dir, "draw sweep.png, ttft.png and itl.png here (gnuplot)");
  app.add_option("--plot-title", a.plot_title);
}

void add_sweep_options(CLI::App& app, bench_args& a) {
  app.add_option("--sweep-request-rates", a.sweep_request_rates, "e.g. 1,2,4,inf");
  app.add_option("--server-config", a.server_config,
                 "start `pagedserve serve --config F` and test it");
  app.add_option("--sweep-server-key", a.sweep_server_key, "config key, e.g. max_num_seqs");
  app.add_option("--sweep-values", a.sweep_values, "values of the key, e.g. 4,8,16");
  app.add_option("--server-binary", a.server_binary,
                 "the pagedserve binary (default: beside pagedserve-bench)");
  app.add_option("--server-log", a.server_log, "the started server's log file");
}

}  // namespace

parsed_command_line parse_bench_args(int argc, char** argv) {
  parsed_command_line parsed;
  CLI::App app("pagedserve-bench: load test of an OpenAI-compatible server", "pagedserve-bench");
  add_server_options(app, parsed.args);
  add_workload_options(app, parsed.args);
  add_traffic_options(app, parsed.args);
  add_output_options(app, parsed.args);
  add_sweep_options(app, parsed.args);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::fputs(app.help().c_str(), stdout);
    parsed.exit_now = 0;
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "pagedserve-bench: %s (--help lists the options)\n", e.what());
    parsed.exit_now = 2;
  }
  return parsed;
}

}  // namespace pagedserve::loadtest
