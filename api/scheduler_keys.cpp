// The scheduler's key rows (scheduler_keys.h), in config/default.yaml's order.

#include "api/scheduler_keys.h"

#include <cstdlib>
#include <string>

namespace pagedserve::sched {
namespace {

// Accessors: a generic lambda per field, usable on a mutable or a const config.
#define PAGEDSERVE_FIELD(name) \
  [](auto& c) -> auto& { return c.name; }

scheduler_key policy_key() {
  return {{"scheduling_policy",
           "fcfs (arrival order) | priority (smaller request priority served first and "
           "preempted last)"},
          [](scheduler_config& c, std::string_view v) {
            if (v == "fcfs") {
              c.policy = scheduling_policy::fcfs;
            } else if (v == "priority") {
              c.policy = scheduling_policy::priority;
            } else {
              return status(config_keys_detail::bad_value("expected fcfs | priority", v));
            }
            return status::success();
          },
          [](const scheduler_config& c) { return std::string(to_string(c.policy)); }};
}

std::vector<scheduler_key> make_table() {
  using u32 = std::uint32_t;
  return {
      unsigned_key<scheduler_config, u32>("max_model_len",
                                          "most tokens (prompt + output) per sequence",
                                          PAGEDSERVE_FIELD(max_model_len), 1),
      unsigned_key<scheduler_config, u32>("block_size", "tokens per KV cache block",
                                          PAGEDSERVE_FIELD(block_size), 1),
      unsigned_key<scheduler_config, u32>(
          "num_blocks",
          "KV cache blocks; 0: on cpu enough for max_num_seqs "
          "sequences of max_model_len, capped at 1 GiB of KV memory; "
          "on cuda what gpu_memory_utilization leaves after a "
          "profiling forward",
          PAGEDSERVE_FIELD(num_blocks)),
      bool_key<scheduler_config>("enable_prefix_caching",
                                 "reuse the KV blocks of identical prompt prefixes",
                                 PAGEDSERVE_FIELD(enable_prefix_caching)),
      unsigned_key<scheduler_config, u32>("max_num_seqs", "most sequences running in one step",
                                          PAGEDSERVE_FIELD(max_num_seqs), 1),
      unsigned_key<scheduler_config, u32>("max_num_batched_tokens", "token budget of one step",
                                          PAGEDSERVE_FIELD(max_num_batched_tokens), 1),
      bool_key<scheduler_config>(
          "enable_chunked_prefill",
          "split long prompts over several steps (else a prompt must fit one step's budget)",
          PAGEDSERVE_FIELD(enable_chunked_prefill)),
      unsigned_key<scheduler_config, u32>(
          "long_prefill_token_threshold",
          "most prompt tokens one sequence may take in one step; 0: no limit beyond the budget",
          PAGEDSERVE_FIELD(long_prefill_token_threshold)),
      policy_key(),
  };
}

#undef PAGEDSERVE_FIELD

}  // namespace

const std::vector<scheduler_key>& scheduler_keys() {
  static const std::vector<scheduler_key> table = make_table();
  return table;
}

const scheduler_key& find_scheduler_key(std::string_view key) {
  const scheduler_key* row = find_key(scheduler_keys(), key);
  if (row == nullptr) std::abort();  // a name the engine table lifts is missing: a bug
  return *row;
}

}  // namespace pagedserve::sched
