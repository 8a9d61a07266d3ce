#pragma once
// server_config: everything `pagedserve serve` reads from its YAML file and flags, fixed
// after start. Keys are named like vLLM's where the meaning is the same; config/default.yaml
// documents every key with its default. Flags override the file.

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "api/engine_config.h"
#include "common/config_key.h"
#include "common/result.h"

namespace pagedserve::net {

struct server_config {
  // model, tokenizer, load_format, backend, dtype, gpu_memory_utilization, enforce_eager,
  // sched.*, max_n, ...
  engine_config engine;

  std::string host = "127.0.0.1";
  std::uint16_t port = 8000;  // 0: any free port (the log and server::port() tell which)
  // Non-empty: every route but /health and the playground needs "Authorization: Bearer <key>".
  std::string api_key;
  std::string served_model_name;  // empty: the model's own name (engine_model_info::name)
  // vLLM's --reasoning-parser: "" (none) | qwen3 | deepseek_r1 (net/openai/reasoning_parser.h).
  std::string reasoning_parser;
  // vLLM's --tool-call-parser: "" (none) | hermes | llama3_json | mistral | pythonic
  // (net/openai/tool_call_parser.h), and --enable-auto-tool-choice (which needs it).
  std::string tool_call_parser;
  bool enable_auto_tool_choice = false;
  // /v1/embeddings' pooling (vLLM's --pooler-config pooling_type): "" (the model folder's
  // sentence-transformers Pooling module, else last) | last | mean | cls.
  std::string pooling_type;
  // vLLM's --chat-template: a Jinja file, or the template itself; it replaces the model's
  // (runtime/chat/load_chat_template.h). Empty: the model's own.
  std::string chat_template;
  // vLLM's --trust-request-chat-template: a request may bring its own chat_template.
  bool trust_request_chat_template = false;
  // CORS (net/http/cors.h), as vLLM's --allowed-origins/-methods/-headers; off while
  // allowed_origins is empty.
  std::vector<std::string> allowed_origins;
  std::vector<std::string> allowed_methods = {"*"};
  std::vector<std::string> allowed_headers = {"*"};
  std::uint32_t num_io_threads = 2;
  // The web playground at `/` (web/, docs/playground.md); off: `/` and /ui/* are 404.
  bool ui = true;
  // Data parallelism (docs/scaling.md): each "local" entry is one engine replica in this
  // process behind a router; empty: one engine. routing: least_load | prefix_aware.
  std::vector<std::string> replicas;
  std::string routing = "least_load";
  // `pagedserve engine`: HOST:PORT to publish the engine on (CAF's middleman); a router
  // lists it in its replicas. engine_secret: the shared secret both sides must hold.
  std::string publish;
  std::string engine_secret;

  // Limits on every connection.
  std::uint32_t max_connections = 4096;            // more are closed at accept
  std::uint64_t max_header_bytes = 16 * 1024;      // 431 above (Beast: header limit)
  std::uint64_t max_body_bytes = 4 * 1024 * 1024;  // 413 above
  double read_timeout_s = 30.0;  // a request's header and body must arrive within this
  double idle_timeout_s = 60.0;  // a keep-alive connection with no request is closed

  // WebSocket /v1/stream.
  std::uint64_t ws_max_message_bytes = 1024 * 1024;
  std::uint64_t ws_max_send_queue_bytes = 1024 * 1024;  // passed: the socket's requests fail
  double ws_ping_interval_s = 20.0;  // ping when idle this long; close if no pong within it

  // The Responses API's stored responses (net/openai/response_store.h): in memory, the
  // oldest evicted past either bound; an evicted id answers 404.
  std::uint64_t responses_store_max_count = 1024;
  std::uint64_t responses_store_max_bytes = 64ULL << 20U;

  double shutdown_timeout_s = 30.0;  // SIGINT/SIGTERM: drain this long, then cancel
  std::string log_level = "info";    // trace | debug | info | warn | error | off
  bool handle_signals = true;        // server::wait() returns on SIGINT/SIGTERM
};

// Reads a YAML file (a map of keys to scalars) over the defaults. An unknown key, a value of
// the wrong type or out of range is an error naming the key (and the file).
[[nodiscard]] result<server_config> load_server_config(const std::filesystem::path& file);
// Applies one key=value pair (value as YAML scalar text, e.g. "true", "8", "1.5", "x").
// Used for flags: `--max-num-seqs 8` is set_config_key(cfg, "max_num_seqs", "8").
[[nodiscard]] status set_config_key(server_config& config, std::string_view key,
                                    std::string_view value);
// Every key, in the order config/default.yaml lists them (flags are generated from these:
// key max_num_seqs is flag --max-num-seqs).
using pagedserve::config_key_info;  // common/config_key.h
[[nodiscard]] const std::vector<config_key_info>& config_keys();
// The value of one key as set_config_key accepts it (for --help defaults and start-up logs).
[[nodiscard]] result<std::string> get_config_key(const server_config& config, std::string_view key);
// The whole configuration's checks across keys (engine_config validate, port, limits).
[[nodiscard]] status validate(const server_config& config);

}  // namespace pagedserve::net
