// pagedserve serve: the OpenAI-compatible HTTP/WebSocket server. Configuration comes from a
// YAML file (--config) and flags, one per key (net/config/serve_args.h); the server itself
// is net/http/server.h. Exit codes: 0 after a clean shutdown, 2 for a bad command line or
// configuration, 1 when the server cannot start (model, address in use).

#include <spdlog/spdlog.h>

#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "api/engine_model_info.h"
#include "cli/command.h"
#include "net/config/serve_args.h"
#include "net/http/server.h"
#include "runtime/engine/model_loading.h"
#include "runtime/model/demo_model.h"

namespace pagedserve::cli {
namespace {

// What the operator should know before the first request: which model under which name,
// and the settings this backend ignores. (A 16-bit dtype on the cpu backend is no such
// setting: the engine refuses to start with it.)
void log_start_notes(const net::server_config& config, const std::string& served_name) {
  spdlog::info("serving model '{}' as '{}'", engine_model_name(config.engine), served_name);
  if (uses_built_in_model(config.engine)) {
    spdlog::info(
        "this is {}, the built-in demo model: a 5M-parameter Llama trained here on the Brown "
        "Corpus. It writes English-looking text, not answers. To serve a real model pass "
        "--model /path/to/hf-checkpoint-folder (config.json + *.safetensors + tokenizer.json) "
        "or set `model:` in the YAML file",
        built_in_model_name);
  } else if (uses_random_demo_model(config.engine)) {
    spdlog::info("this is {}, random weights: its output is noise", demo_model_name);
  }
  if (config.engine.backend == "cpu") {
    const engine_config defaults;
    if (config.engine.gpu_memory_utilization != defaults.gpu_memory_utilization) {
      spdlog::warn(
          "gpu_memory_utilization is ignored by the cpu backend (num_blocks sizes "
          "its KV cache)");
    }
    if (config.engine.enforce_eager != defaults.enforce_eager) {
      spdlog::warn("enforce_eager is ignored by the cpu backend (it captures no graphs)");
    }
  }
  if (config.api_key.empty() && config.host != "127.0.0.1" && config.host != "localhost") {
    spdlog::warn("listening on {} without an api_key: anyone who can reach it may use it",
                 config.host);
  }
}

int run_serve(int argc, char** argv) {
  const std::vector<std::string_view> args(argv + 1, argv + argc);
  auto parsed = net::parse_serve_args(args);
  if (!parsed) {
    std::fprintf(stderr, "pagedserve serve: %s\n", parsed.err().message.c_str());
    return 2;
  }
  if (parsed->help) {
    std::fputs(net::serve_usage().c_str(), stdout);
    return 0;
  }
  const net::server_config& config = parsed->config;
  spdlog::set_level(spdlog::level::from_str(config.log_level));
  const std::string served_name = config.served_model_name.empty()
                                      ? engine_model_name(config.engine)
                                      : config.served_model_name;
  log_start_notes(config, served_name);

  auto server = net::server::start(config);
  if (!server) {
    spdlog::error("cannot start the server: {}", server.err().message);
    return exit_status_for(server.err().code);
  }
  const bool ipv6 = config.host.find(':') != std::string::npos;
  spdlog::info("listening on http://{}{}{}:{}", ipv6 ? "[" : "", config.host, ipv6 ? "]" : "",
               (*server)->port());
  if (config.ui) spdlog::info("the web playground is at / (docs/playground.md; ui: off hides it)");
  const std::uint64_t num_cancelled = (*server)->wait();
  spdlog::info("stopped ({} requests cancelled at the shutdown deadline)", num_cancelled);
  return 0;
}

const command_registration registration{
    {"serve", "OpenAI-compatible HTTP/WebSocket server (--help lists every flag)", &run_serve}};

}  // namespace
}  // namespace pagedserve::cli
