// The one table of `pagedserve serve`'s configuration keys: the engine's (engine_keys.h,
// lifted onto server_config.engine) then the server's own. YAML scalars and command-line
// flags both go through set_config_key, so a key parses and checks the same way in both
// places. The order is config/default.yaml's (a test checks the file lists every key with
// its default).

#include <string>
#include <vector>

#include "api/engine_keys.h"
#include "common/config_key.h"
#include "net/config/server_config.h"

namespace pagedserve::net {
namespace {

using server_key = config_key<server_config>;

// Accessors: a generic lambda per field, usable on a mutable or a const config.
#define PAGEDSERVE_FIELD(path) \
  [](auto& c) -> auto& { return c.path; }

std::vector<server_key> server_keys() {
  return {
      string_key<server_config>("host", "address to listen on (0.0.0.0: every interface)",
                                PAGEDSERVE_FIELD(host)),
      unsigned_key<server_config, std::uint16_t>(
          "port", "TCP port; 0: any free port (logged at start)", PAGEDSERVE_FIELD(port)),
      string_key<server_config>(
          "api_key",
          "non-empty: every route but /health and the playground (/, /ui/*) needs the header "
          "'Authorization: Bearer <api_key>'",
          PAGEDSERVE_FIELD(api_key)),
      string_key<server_config>("served_model_name",
                                "the model name in the API; empty: the model's own name",
                                PAGEDSERVE_FIELD(served_model_name)),
      choice_key<server_config>(
          "reasoning_parser",
          "\"\" (none) | qwen3 | deepseek_r1: chat answers' <think>...</think> text goes to "
          "message.reasoning_content (delta.reasoning_content when streaming), as vLLM's "
          "--reasoning-parser",
          PAGEDSERVE_FIELD(reasoning_parser), {"", "qwen3", "deepseek_r1"}),
      choice_key<server_config>(
          "pooling_type",
          "\"\" (the model folder's sentence-transformers pooling, else last) | last | mean | cls: "
          "how /v1/embeddings pools the prompt's hidden states, as vLLM's --pooler-config",
          PAGEDSERVE_FIELD(pooling_type), {"", "last", "mean", "cls"}),
      choice_key<server_config>(
          "tool_call_parser",
          "\"\" (none) | hermes | llama3_json | mistral | pythonic: how chat answers' text "
          "becomes tool_calls under tool_choice auto (vLLM's --tool-call-parser; hermes for "
          "Qwen2.5/Qwen3)",
          PAGEDSERVE_FIELD(tool_call_parser), {"", "hermes", "llama3_json", "mistral", "pythonic"}),
      bool_key<server_config>(
          "enable_auto_tool_choice",
          "let the model decide to call tools (tool_choice auto, the default with tools; vLLM's "
          "--enable-auto-tool-choice); needs tool_call_parser",
          PAGEDSERVE_FIELD(enable_auto_tool_choice)),
      string_key<server_config>(
          "chat_template",
          "a Jinja chat template file, or the template itself, used instead of the model's "
          "(vLLM's --chat-template); empty: the model's own",
          PAGEDSERVE_FIELD(chat_template)),
      bool_key<server_config>(
          "trust_request_chat_template",
          "let requests bring their own chat_template (vLLM's --trust-request-chat-template); "
          "otherwise such a request is a 400",
          PAGEDSERVE_FIELD(trust_request_chat_template)),
      list_key<server_config>(
          "allowed_origins",
          "CORS: origins a browser may call from (\"*\": any); empty: CORS off (no headers, "
          "no preflight)",
          PAGEDSERVE_FIELD(allowed_origins)),
      list_key<server_config>("allowed_methods", "CORS: methods a preflight allows (\"*\": any)",
                              PAGEDSERVE_FIELD(allowed_methods)),
      list_key<server_config>("allowed_headers",
                              "CORS: request headers a preflight allows (\"*\": any)",
                              PAGEDSERVE_FIELD(allowed_headers)),
      bool_key<server_config>(
          "ui",
          "on | off: the web playground at / (chat over /v1/stream and a live dashboard of "
          "/metrics)",
          PAGEDSERVE_FIELD(ui)),
      list_key<server_config>(
          "replicas",
          "engine replicas behind one endpoint, each \"local\" (an engine in this process, "
          "same model and settings, its own KV cache) or HOST:PORT (a `pagedserve engine "
          "--publish`); empty: one engine, no router",
          PAGEDSERVE_FIELD(replicas)),
      choice_key<server_config>(
          "routing",
          "least_load | prefix_aware: how the router picks a replica (fewest outstanding "
          "tokens; or the replica that served the longest matching prompt prefix, as "
          "SGLang's cache-aware router)",
          PAGEDSERVE_FIELD(routing), {"least_load", "prefix_aware"}),
      string_key<server_config>(
          "publish",
          "pagedserve engine: HOST:PORT to publish the engine on for a router (port 0: any "
          "free one, printed); keep it on a private network (docs/scaling.md)",
          PAGEDSERVE_FIELD(publish)),
      string_key<server_config>(
          "engine_secret",
          "shared secret between `pagedserve engine` and the routers that list it in "
          "replicas (empty: none); also read from PAGEDSERVE_ENGINE_SECRET",
          PAGEDSERVE_FIELD(engine_secret)),
      unsigned_key<server_config, std::uint32_t>("num_io_threads",
                                                 "threads running the network I/O",
                                                 PAGEDSERVE_FIELD(num_io_threads), 1, 1024),
      unsigned_key<server_config, std::uint32_t>("max_connections",
                                                 "open connections; more are closed at accept",
                                                 PAGEDSERVE_FIELD(max_connections), 1),
      unsigned_key<server_config, std::uint64_t>("max_header_bytes",
                                                 "largest request header (431 above)",
                                                 PAGEDSERVE_FIELD(max_header_bytes), 1),
      unsigned_key<server_config, std::uint64_t>("max_body_bytes",
                                                 "largest request body (413 above)",
                                                 PAGEDSERVE_FIELD(max_body_bytes), 1),
      double_key<server_config>("read_timeout_s",
                                "seconds for a request's header and body to arrive",
                                PAGEDSERVE_FIELD(read_timeout_s), {}),
      double_key<server_config>("idle_timeout_s",
                                "seconds a keep-alive connection may wait for its next request",
                                PAGEDSERVE_FIELD(idle_timeout_s), {}),
      unsigned_key<server_config, std::uint64_t>("ws_max_message_bytes",
                                                 "largest WebSocket message received",
                                                 PAGEDSERVE_FIELD(ws_max_message_bytes), 1),
      unsigned_key<server_config, std::uint64_t>(
          "ws_max_send_queue_bytes",
          "bytes queued for a slow WebSocket client before its requests fail (backpressure)",
          PAGEDSERVE_FIELD(ws_max_send_queue_bytes), 1),
      double_key<server_config>(
          "ws_ping_interval_s",
          "ping an idle WebSocket after this many seconds; close it if no pong follows",
          PAGEDSERVE_FIELD(ws_ping_interval_s), {}),
      unsigned_key<server_config, std::uint64_t>(
          "responses_store_max_count",
          "stored Responses API responses kept (oldest evicted; 0: none stored)",
          PAGEDSERVE_FIELD(responses_store_max_count), 0),
      unsigned_key<server_config, std::uint64_t>(
          "responses_store_max_bytes",
          "bytes of stored Responses API responses and their conversations (oldest evicted)",
          PAGEDSERVE_FIELD(responses_store_max_bytes), 0),
      double_key<server_config>(
          "shutdown_timeout_s",
          "on SIGINT/SIGTERM: seconds to let requests finish before cancelling them",
          PAGEDSERVE_FIELD(shutdown_timeout_s), {0.0, true}),
      choice_key<server_config>("log_level", "trace | debug | info | warn | error | off",
                                PAGEDSERVE_FIELD(log_level),
                                {"trace", "debug", "info", "warn", "error", "off"}),
  };
}

std::vector<server_key> make_table() {
  std::vector<server_key> table;
  for (const engine_key& e : engine_keys()) {
    table.push_back(lift_key<server_config>(e, PAGEDSERVE_FIELD(engine)));
  }
  for (server_key& e : server_keys()) table.push_back(std::move(e));
  return table;
}

#undef PAGEDSERVE_FIELD

const std::vector<server_key>& table() {
  static const std::vector<server_key> entries = make_table();
  return entries;
}

const server_key* find(std::string_view key) { return find_key(table(), key); }

error unknown_key(std::string_view key) {
  return make_error(error_code::invalid_argument, "unknown key '" + std::string(key) + "'");
}

}  // namespace

const std::vector<config_key_info>& config_keys() {
  static const std::vector<config_key_info> keys = [] {
    std::vector<config_key_info> out;
    for (const server_key& e : table()) out.push_back(e.info);
    return out;
  }();
  return keys;
}

status set_config_key(server_config& config, std::string_view key, std::string_view value) {
  const server_key* entry = find(key);
  if (entry == nullptr) return unknown_key(key);
  status s = entry->set(config, value);
  if (!s) return make_error(s.err().code, std::string(key) + ": " + s.err().message);
  return s;
}

result<std::string> get_config_key(const server_config& config, std::string_view key) {
  const server_key* entry = find(key);
  if (entry == nullptr) return unknown_key(key);
  return entry->get(config);
}

}  // namespace pagedserve::net
