#pragma once
// bench_args: the command line of pagedserve-bench, option names after vLLM's `bench serve`
// where one exists (docs/load-testing.md lists them all). Parsing only checks syntax and
// ranges; bench_setup.h turns the values into a workload and driver options.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pagedserve::loadtest {

struct bench_args {
  // Server
  std::optional<std::string> base_url;
  std::string host = "127.0.0.1";
  int port = 8000;
  std::string endpoint = "/v1/completions";
  std::optional<std::string> model;
  std::optional<std::string> api_key;  // else env OPENAI_API_KEY
  // Workload
  std::string dataset_name = "random";
  std::optional<std::string> dataset_path;
  std::optional<std::size_t> num_prompts;  // random: count (default 1000); others: limit
  std::uint32_t random_input_len = 1024;
  std::uint32_t random_output_len = 128;
  double random_range_ratio = 0.0;
  std::uint32_t random_prefix_len = 0;
  std::string token_id_range = "0:10000";
  std::size_t shared_prefix_groups = 8;
  std::size_t shared_prefix_requests_per_group = 8;
  std::uint32_t shared_prefix_len = 512;
  std::uint32_t shared_prefix_suffix_len = 64;
  std::uint32_t shared_prefix_output_len = 64;
  double length_scale = 1.0;
  std::optional<std::int64_t> vocab_size;
  std::optional<std::string> tokenizer;  // "demo" or a folder: send id prompts as text
  // Traffic
  std::string request_rate = "inf";
  double burstiness = 1.0;
  std::size_t max_concurrency = 0;
  std::size_t num_warmups = 0;
  std::uint64_t seed = 0;
  bool ignore_eos = false;
  double temperature = 0.0;
  std::optional<std::string> extra_body;
  double request_timeout_s = 600.0;
  double read_timeout_s = 120.0;
  std::vector<std::string> goodput;  // "ttft:500" ... (a word may hold several, space-separated)
  // Output
  bool json = false;
  std::optional<std::string> save_result;
  bool no_progress = false;
  std::optional<std::string> plot_dir;
  std::string plot_title = "pagedserve-bench";
  // Sweeps and servers started by the tool
  std::optional<std::string> sweep_request_rates;  // "1,2,4,inf"
  std::optional<std::string> server_config;
  std::optional<std::string> sweep_server_key;
  std::optional<std::string> sweep_values;  // "4,8,16"
  std::optional<std::string> server_binary;
  std::optional<std::string> server_log;
};

struct parsed_command_line {
  bench_args args;
  std::optional<int> exit_now;  // set for --help (0) and bad arguments (2, message printed)
};

[[nodiscard]] parsed_command_line parse_bench_args(int argc, char** argv);

}  // namespace pagedserve::loadtest
