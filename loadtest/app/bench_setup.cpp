#include "loadtest/app/bench_setup.h"

#include <unistd.h>

#include <boost/json.hpp>
#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "loadtest/app/prompt_text.h"

namespace pagedserve::loadtest {
namespace {

error invalid(std::string message) {
  return make_error(error_code::invalid_argument, std::move(message));
}

result<double> parse_milliseconds(std::string_view text, std::string_view word) {
  double value = 0.0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || !(value > 0.0)) {
    return invalid("--goodput " + std::string(word) + ": the value is not a positive number");
  }
  return value;
}

result<std::vector<bench_request>> load_or_generate(const bench_args& args, std::uint64_t seed) {
  auto ids = parse_token_id_range(args.token_id_range);
  if (!ids) return ids.err();
  if (args.dataset_name == "jsonl") {
    if (!args.dataset_path) return invalid("--dataset-name jsonl needs --dataset-path");
    return load_jsonl_workload(*args.dataset_path);
  }
  if (args.dataset_name == "shared-prefix") {
    shared_prefix_workload_spec spec;
    spec.num_groups = args.shared_prefix_groups;
    spec.requests_per_group = args.shared_prefix_requests_per_group;
    spec.prefix_len = args.shared_prefix_len;
    spec.suffix_len = args.shared_prefix_suffix_len;
    spec.output_len = args.shared_prefix_output_len;
    spec.ids = *ids;
    return make_shared_prefix_workload(spec, seed);
  }
  random_workload_spec spec;
  spec.num_requests = args.num_prompts.value_or(1000);
  spec.input_len = args.random_input_len;
  spec.output_len = args.random_output_len;
  spec.range_ratio = args.random_range_ratio;
  spec.prefix_len = args.random_prefix_len;
  spec.ids = *ids;
  return make_random_workload(spec, seed);
}

std::filesystem::path default_server_binary() {
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::path("pagedserve") : self.parent_path() / "pagedserve";
}

}  // namespace

result<slo_spec> parse_goodput(const std::vector<std::string>& words) {
  slo_spec slo;
  for (const std::string& given : words) {
    std::istringstream split(given);
    for (std::string word; split >> word;) {
      const std::size_t colon = word.find(':');
      if (colon == std::string::npos) return invalid("--goodput " + word + ": expected KEY:MS");
      const std::string key = word.substr(0, colon);
      auto ms = parse_milliseconds(std::string_view(word).substr(colon + 1), word);
      if (!ms) return ms.err();
      if (key == "ttft") {
        slo.ttft_ms = *ms;
      } else if (key == "tpot") {
        slo.tpot_ms = *ms;
      } else if (key == "e2el") {
        slo.e2el_ms = *ms;
      } else {
        return invalid("--goodput " + word + ": the key is not ttft, tpot or e2el");
      }
    }
  }
  return slo;
}

result<token_id_range> parse_token_id_range(const std::string& text) {
  const std::size_t colon = text.find(':');
  token_id_range range;
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  bool ok = colon != std::string::npos;
  if (ok) {
    const auto first = std::from_chars(begin, begin + colon, range.first);
    const auto last = std::from_chars(begin + colon + 1, end, range.last);
    ok = first.ec == std::errc() && first.ptr == begin + colon && last.ec == std::errc() &&
         last.ptr == end && range.first >= 0 && range.first < range.last;
  }
  if (!ok) return invalid("--token-id-range " + text + ": expected LO:HI with 0 <= LO < HI");
  return range;
}

result<std::vector<std::string>> parse_list(const std::string& text) {
  std::vector<std::string> items;
  std::istringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    const auto first = item.find_first_not_of(' ');
    if (first == std::string::npos) return invalid("empty item in the list '" + text + "'");
    items.push_back(item.substr(first, item.find_last_not_of(' ') - first + 1));
  }
  if (items.empty() || text.back() == ',') return invalid("empty item in the list '" + text + "'");
  return items;
}

bool workload_is_generated(const bench_args& args) { return args.dataset_name != "jsonl"; }

result<std::vector<bench_request>> make_workload(const bench_args& args, std::uint64_t seed_offset,
                                                 const tokenizer* prompt_tokenizer) {
  auto requests = load_or_generate(args, args.seed + seed_offset);
  if (!requests) return requests.err();
  workload_shaping shaping;
  if (args.dataset_name != "random") shaping.limit = args.num_prompts;
  shaping.length_scale = args.length_scale;
  shaping.vocab_size = args.vocab_size;
  auto shaped = shape_workload(std::move(*requests), shaping);
  if (!shaped || prompt_tokenizer == nullptr) return shaped;
  if (status decoded = decode_prompts(*shaped, *prompt_tokenizer); !decoded) return decoded.err();
  return shaped;
}

result<driver_options> make_driver_options(const bench_args& args) {
  driver_options options;
  options.path = args.endpoint;
  options.body.kind =
      args.endpoint == "/v1/chat/completions" ? api_kind::chat_completions : api_kind::completions;
  if (args.api_key) {
    options.api_key = args.api_key;
  } else if (const char* env = std::getenv("OPENAI_API_KEY"); env != nullptr && *env != '\0') {
    options.api_key = std::string(env);
  }
  if (args.model) options.body.model = *args.model;
  options.body.temperature = args.temperature;
  options.body.ignore_eos = args.ignore_eos;
  if (args.extra_body) {
    boost::system::error_code ec;
    const boost::json::value extra = boost::json::parse(*args.extra_body, ec);
    if (ec || !extra.is_object()) return invalid("--extra-body is not a JSON object");
    options.body.extra = extra.as_object();
  }
  auto rate = parse_request_rate(args.request_rate);
  if (!rate) return invalid("--request-rate: " + rate.err().message);
  options.arrivals.request_rate = *rate;
  options.arrivals.burstiness = args.burstiness;
  options.max_concurrency = args.max_concurrency;
  options.num_warmups = args.num_warmups;
  options.seed = args.seed;
  options.request_timeout_s = args.request_timeout_s;
  options.read_timeout_s = args.read_timeout_s;
  return options;
}

result<server_url> named_server(const bench_args& args) {
  if (args.base_url) return parse_server_url(*args.base_url);
  return parse_server_url(args.host + ":" + std::to_string(args.port));
}

result<sweep_spec> make_sweep_spec(const bench_args& args) {
  sweep_spec spec;
  if (args.sweep_request_rates && args.sweep_server_key) {
    return invalid("--sweep-request-rates and --sweep-server-key cannot be combined");
  }
  if (args.sweep_server_key.has_value() != args.sweep_values.has_value()) {
    return invalid("--sweep-server-key and --sweep-values go together");
  }
  if (args.sweep_server_key && !args.server_config) {
    return invalid("--sweep-server-key needs --server-config (the servers are started here)");
  }
  const std::optional<std::string>& list =
      args.sweep_request_rates ? args.sweep_request_rates : args.sweep_values;
  if (!list) return spec;
  auto values = parse_list(*list);
  if (!values) return values.err();
  spec.values = std::move(*values);
  if (args.sweep_server_key) {
    spec.server_key = *args.sweep_server_key;
    spec.launch = make_server_launch(args);
  } else {
    for (const std::string& value : spec.values) {
      auto rate = parse_request_rate(value);
      if (!rate) return invalid("--sweep-request-rates: " + rate.err().message);
    }
  }
  return spec;
}

server_launch make_server_launch(const bench_args& args) {
  server_launch launch;
  launch.binary =
      args.server_binary ? std::filesystem::path(*args.server_binary) : default_server_binary();
  launch.config = args.server_config.value_or("");
  launch.log_path = args.server_log
                        ? std::filesystem::path(*args.server_log)
                        : std::filesystem::temp_directory_path() /
                              ("pagedserve-bench-server-" + std::to_string(::getpid()) + ".log");
  return launch;
}

}  // namespace pagedserve::loadtest
