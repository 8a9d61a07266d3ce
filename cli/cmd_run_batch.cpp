// pagedserve run-batch: an OpenAI batch file through the engine, as vLLM's run_batch:
//   pagedserve run-batch -i requests.jsonl -o results.jsonl [--max-in-flight N] [--json]
//                        [every `serve` flag: --model, --chat-template, --max-num-seqs, ...]
// Each input line is {custom_id, method, url, body} for /v1/chat/completions,
// /v1/completions, /v1/embeddings or /v1/responses; each output line answers one input
// line, in input order, with the status and body the server would have answered, or the
// line's error (net/openai/batch_file.h). A progress line goes to stderr; --json prints the
// totals as one JSON object on stdout. Exit status: 0 when every line was answered (failed
// lines included: their errors are in the output), 2 for a bad command line or model, 1
// when the engine or the files fail.

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json.hpp>

#include "actors/engine.h"
#include "cli/batch_runner.h"
#include "cli/command.h"
#include "net/config/serve_args.h"
#include "net/http/server_context.h"
#include "net/openai/served_chat_template.h"

namespace pagedserve::cli {
namespace {

struct batch_args {
  std::string input;
  std::string output;
  std::size_t max_in_flight = 0;  // 0: the engine's max_waiting_requests, at most 4096
  bool json = false;
  std::vector<std::string_view> serve;  // the rest: `serve` flags
};

constexpr std::string_view k_usage =
    "usage: pagedserve run-batch -i INPUT.jsonl -o OUTPUT.jsonl [--max-in-flight N] [--json]\n"
    "                            [serve flags: --model PATH, --chat-template, ...]\n";

result<batch_args> parse_args(int argc, char** argv) {
  batch_args out;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    const bool has_value = i + 1 < argc;
    if ((a == "-i" || a == "--input-file") && has_value) {
      out.input = argv[++i];
    } else if ((a == "-o" || a == "--output-file") && has_value) {
      out.output = argv[++i];
    } else if (a == "--max-in-flight" && has_value) {
      out.max_in_flight = std::strtoull(argv[++i], nullptr, 10);
    } else if (a == "--json") {
      out.json = true;
    } else {
      out.serve.push_back(a);
    }
  }
  if (out.input.empty() || out.output.empty()) {
    return make_error(error_code::invalid_argument,
                      "-i and -o are required\n" + std::string(k_usage));
  }
  return out;
}

void print_progress(const batch_totals& t, bool final_line) {
  static const bool tty = isatty(STDERR_FILENO) != 0;
  static double last_printed = -10.0;
  if (!final_line && !tty && t.wall_s - last_printed < 5.0) return;
  last_printed = t.wall_s;
  std::fprintf(stderr, "%srun-batch: %zu lines done (%zu failed), %.0f output tok/s, %.1f s%s",
               tty ? "\r" : "", t.lines_done, t.lines_failed,
               t.wall_s > 0 ? static_cast<double>(t.output_tokens) / t.wall_s : 0.0, t.wall_s,
               tty && !final_line ? "" : "\n");
}

int run_batch(int argc, char** argv) {
  spdlog::set_default_logger(spdlog::stderr_color_mt("run-batch"));  // stdout: --json only
  auto args = parse_args(argc, argv);
  if (!args) {
    std::fprintf(stderr, "pagedserve run-batch: %s", args.err().message.c_str());
    return 2;
  }
  auto parsed = net::parse_serve_args(args->serve);
  if (!parsed) {
    std::fprintf(stderr, "pagedserve run-batch: %s\n", parsed.err().message.c_str());
    return 2;
  }
  const net::server_config& config = parsed->config;
  spdlog::set_level(spdlog::level::from_str(config.log_level));
  std::ifstream in(args->input);
  if (!in)
    return std::fprintf(stderr, "pagedserve run-batch: cannot read %s\n", args->input.c_str()), 2;
  std::ofstream out(args->output, std::ios::trunc);
  if (!out)
    return std::fprintf(stderr, "pagedserve run-batch: cannot write %s\n", args->output.c_str()), 1;
  auto key_template = net::load_chat_template_key(config.chat_template);
  if (!key_template)
    return std::fprintf(stderr, "pagedserve run-batch: %s\n", key_template.err().message.c_str()),
           2;
  auto eng = engine::start(config.engine);
  if (!eng) {
    spdlog::error("cannot start the engine: {}", eng.err().message);
    return exit_status_for(eng.err().code);
  }
  const net::served_model served =
      net::make_served_model(config, (*eng)->model(), std::move(*key_template));
  const std::size_t window =
      args->max_in_flight > 0
          ? args->max_in_flight
          : std::min<std::size_t>(std::max<std::uint32_t>(config.engine.max_waiting_requests, 1),
                                  4096);
  batch_runner runner(**eng, served.context, window);
  const batch_totals totals =
      runner.run(in, out, [](const batch_totals& t) { print_progress(t, false); });
  print_progress(totals, true);
  out.flush();
  (*eng)->shutdown(std::chrono::seconds(10));
  if (!out)
    return std::fprintf(stderr, "pagedserve run-batch: writing %s failed\n", args->output.c_str()),
           1;
  if (args->json) {
    const boost::json::object summary{
        {"lines", totals.lines_done},
        {"failed", totals.lines_failed},
        {"output_tokens", totals.output_tokens},
        {"wall_s", totals.wall_s},
        {"output_tokens_per_s",
         totals.wall_s > 0 ? static_cast<double>(totals.output_tokens) / totals.wall_s : 0.0}};
    std::printf("%s\n", boost::json::serialize(summary).c_str());
  }
  return 0;
}

const command_registration registration{
    {"run-batch", "run an OpenAI batch file (JSONL) through the engine", run_batch}};

}  // namespace
}  // namespace pagedserve::cli
