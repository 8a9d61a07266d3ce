// The one table of configuration keys. YAML scalars and command-line flags both go through
// set_config_key, so a key parses and checks the same way in both places. The order is
// config/default.yaml's (a test checks the file lists every key with its default).

#include <string>
#include <vector>

#include "net/config/config_key_entry.h"
#include "net/config/server_config.h"

namespace pagedserve::net {
namespace {

using namespace detail;

// Accessors: a generic lambda per field, usable on a mutable or a const config.
#define PAGEDSERVE_FIELD(path) \
  [](auto& c) -> auto& { return c.path; }

std::vector<config_key_entry> model_keys() {
  return {
      string_key("model",
                 "HF checkpoint folder (config.json + *.safetensors [+ tokenizer.json]); empty: "
                 "the built-in demo model pagedserve-demo (random weights)",
                 PAGEDSERVE_FIELD(engine.model_dir)),
      string_key("tokenizer", "folder with tokenizer.json; empty: the model folder's",
                 PAGEDSERVE_FIELD(engine.tokenizer_dir)),
      choice_key("load_format", "auto (read the safetensors) | dummy (random weights)",
                 PAGEDSERVE_FIELD(engine.load_format), {"auto", "dummy"}),
      string_key("model_config",
                 "a config.json to run with random weights (benchmarks); exclusive with model",
                 PAGEDSERVE_FIELD(engine.model_config_file)),
      choice_key("backend", "cpu | cuda", PAGEDSERVE_FIELD(engine.backend), {"cpu", "cuda"}),
      choice_key("dtype",
                 "weights and activations on the CUDA backend: auto (the checkpoint's "
                 "16-bit type) | float32 | bfloat16 | float16; the cpu backend computes in "
                 "float32 only (auto or float32)",
                 PAGEDSERVE_FIELD(engine.dtype), {"auto", "float32", "bfloat16", "float16"}),
      bool_key("enforce_eager",
               "CUDA: run every step eagerly instead of replaying captured decode graphs "
               "(ignored on cpu)",
               PAGEDSERVE_FIELD(engine.enforce_eager)),
      unsigned_key<std::uint64_t>("seed", "seed of the random (dummy/demo) weights",
                                  PAGEDSERVE_FIELD(engine.weights_seed)),
  };
}

std::vector<config_key_entry> cache_keys() {
  return {
      unsigned_key<std::uint32_t>("max_model_len", "most tokens (prompt + output) per sequence",
                                  PAGEDSERVE_FIELD(engine.sched.max_model_len), 1),
      unsigned_key<std::uint32_t>("block_size", "tokens per KV cache block",
                                  PAGEDSERVE_FIELD(engine.sched.block_size), 1),
      unsigned_key<std::uint32_t>("num_blocks",
                                  "KV cache blocks; 0: on cpu enough for max_num_seqs "
                                  "sequences of max_model_len, capped at 1 GiB of KV memory; "
                                  "on cuda what gpu_memory_utilization leaves after a "
                                  "profiling forward",
                                  PAGEDSERVE_FIELD(engine.sched.num_blocks)),
      double_key("gpu_memory_utilization",
                 "fraction of GPU memory for weights, activations and KV cache, in (0, 1]; "
                 "CUDA backend only (accepted and ignored on cpu)",
                 PAGEDSERVE_FIELD(engine.gpu_memory_utilization), {0.0, false, 1.0}),
      bool_key("enable_prefix_caching", "reuse the KV blocks of identical prompt prefixes",
               PAGEDSERVE_FIELD(engine.sched.enable_prefix_caching)),
  };
}

config_key_entry policy_key() {
  return {
      {"scheduling_policy",
       "fcfs (arrival order) | priority (smaller request priority served first and "
       "preempted last)"},
      [](server_config& c, std::string_view v) {
        if (v == "fcfs") {
          c.engine.sched.policy = sched::scheduling_policy::fcfs;
        } else if (v == "priority") {
          c.engine.sched.policy = sched::scheduling_policy::priority;
        } else {
          return status(bad_value("expected fcfs | priority", v));
        }
        return status::success();
      },
      [](const server_config& c) { return std::string(sched::to_string(c.engine.sched.policy)); }};
}

std::vector<config_key_entry> scheduler_keys() {
  return {
      unsigned_key<std::uint32_t>("max_num_seqs", "most sequences running in one step",
                                  PAGEDSERVE_FIELD(engine.sched.max_num_seqs), 1),
      unsigned_key<std::uint32_t>("max_num_batched_tokens", "token budget of one step",
                                  PAGEDSERVE_FIELD(engine.sched.max_num_batched_tokens), 1),
      bool_key("enable_chunked_prefill",
               "split long prompts over several steps (else a prompt must fit one step's budget)",
               PAGEDSERVE_FIELD(engine.sched.enable_chunked_prefill)),
      unsigned_key<std::uint32_t>(
          "long_prefill_token_threshold",
          "most prompt tokens one sequence may take in one step; 0: no limit beyond the budget",
          PAGEDSERVE_FIELD(engine.sched.long_prefill_token_threshold)),
      policy_key(),
      unsigned_key<std::uint32_t>("max_waiting_requests",
                                  "waiting requests beyond which new ones fail at once (429)",
                                  PAGEDSERVE_FIELD(engine.max_waiting_requests), 1),
      unsigned_key<std::uint32_t>("max_n", "most completions per request (the n parameter)",
                                  PAGEDSERVE_FIELD(engine.max_n), 1),
  };
}

std::vector<config_key_entry> server_keys() {
  return {
      string_key("host", "address to listen on (0.0.0.0: every interface)", PAGEDSERVE_FIELD(host)),
      unsigned_key<std::uint16_t>("port", "TCP port; 0: any free port (logged at start)",
                                  PAGEDSERVE_FIELD(port)),
      string_key("api_key",
                 "non-empty: every /v1 route needs the header 'Authorization: Bearer <api_key>'",
                 PAGEDSERVE_FIELD(api_key)),
      string_key("served_model_name", "the model name in the API; empty: the model's own name",
                 PAGEDSERVE_FIELD(served_model_name)),
      unsigned_key<std::uint32_t>("num_io_threads", "threads running the network I/O",
                                  PAGEDSERVE_FIELD(num_io_threads), 1, 1024),
      unsigned_key<std::uint32_t>("max_connections", "open connections; more are closed at accept",
                                  PAGEDSERVE_FIELD(max_connections), 1),
      unsigned_key<std::uint64_t>("max_header_bytes", "largest request header (431 above)",
                                  PAGEDSERVE_FIELD(max_header_bytes), 1),
      unsigned_key<std::uint64_t>("max_body_bytes", "largest request body (413 above)",
                                  PAGEDSERVE_FIELD(max_body_bytes), 1),
      double_key("read_timeout_s", "seconds for a request's header and body to arrive",
                 PAGEDSERVE_FIELD(read_timeout_s), {}),
      double_key("idle_timeout_s", "seconds a keep-alive connection may wait for its next request",
                 PAGEDSERVE_FIELD(idle_timeout_s), {}),
      unsigned_key<std::uint64_t>("ws_max_message_bytes", "largest WebSocket message received",
                                  PAGEDSERVE_FIELD(ws_max_message_bytes), 1),
      unsigned_key<std::uint64_t>(
          "ws_max_send_queue_bytes",
          "bytes queued for a slow WebSocket client before its requests fail (backpressure)",
          PAGEDSERVE_FIELD(ws_max_send_queue_bytes), 1),
      double_key("ws_ping_interval_s",
                 "ping an idle WebSocket after this many seconds; close it if no pong follows",
                 PAGEDSERVE_FIELD(ws_ping_interval_s), {}),
      double_key("shutdown_timeout_s",
                 "on SIGINT/SIGTERM: seconds to let requests finish before cancelling them",
                 PAGEDSERVE_FIELD(shutdown_timeout_s), {0.0, true}),
      choice_key("log_level", "trace | debug | info | warn | error | off",
                 PAGEDSERVE_FIELD(log_level), {"trace", "debug", "info", "warn", "error", "off"}),
  };
}

#undef PAGEDSERVE_FIELD

std::vector<config_key_entry> make_table() {
  std::vector<config_key_entry> table;
  for (auto* part : {&model_keys, &cache_keys, &scheduler_keys, &server_keys}) {
    for (config_key_entry& e : part()) {
      table.push_back(std::move(e));
    }
  }
  return table;
}

const std::vector<config_key_entry>& table() {
  static const std::vector<config_key_entry> entries = make_table();
  return entries;
}

const config_key_entry* find(std::string_view key) {
  for (const config_key_entry& e : table()) {
    if (e.info.key == key) return &e;
  }
  return nullptr;
}

error unknown_key(std::string_view key) {
  return make_error(error_code::invalid_argument, "unknown key '" + std::string(key) + "'");
}

}  // namespace

const std::vector<config_key_info>& config_keys() {
  static const std::vector<config_key_info> keys = [] {
    std::vector<config_key_info> out;
    for (const config_key_entry& e : table()) out.push_back(e.info);
    return out;
  }();
  return keys;
}

status set_config_key(server_config& config, std::string_view key, std::string_view value) {
  const config_key_entry* entry = find(key);
  if (entry == nullptr) return unknown_key(key);
  status s = entry->set(config, value);
  if (!s) return make_error(s.err().code, std::string(key) + ": " + s.err().message);
  return s;
}

result<std::string> get_config_key(const server_config& config, std::string_view key) {
  const config_key_entry* entry = find(key);
  if (entry == nullptr) return unknown_key(key);
  return entry->get(config);
}

}  // namespace pagedserve::net
