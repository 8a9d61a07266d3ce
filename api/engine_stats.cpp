#include "api/engine_stats.h"

namespace pagedserve {

std::uint64_t& engine_stats::num_finished_by(finish_reason reason) {
  switch (reason) {
    case finish_reason::stop:
      return num_finished_stop;
    case finish_reason::length:
      return num_finished_length;
    case finish_reason::cancelled:
      return num_cancelled;
    case finish_reason::error:
      break;
  }
  return num_failed;
}

void add_engine_stats(engine_stats& total, const engine_stats& part) {
  total.num_running += part.num_running;
  total.num_waiting += part.num_waiting;
  total.num_total_blocks += part.num_total_blocks;
  total.num_free_blocks += part.num_free_blocks;
  total.num_requests += part.num_requests;
  total.num_rejected += part.num_rejected;
  total.num_finished_stop += part.num_finished_stop;
  total.num_finished_length += part.num_finished_length;
  total.num_cancelled += part.num_cancelled;
  total.num_failed += part.num_failed;
  total.num_steps += part.num_steps;
  total.num_failed_steps += part.num_failed_steps;
  total.num_preemptions += part.num_preemptions;
  total.num_prompt_tokens += part.num_prompt_tokens;
  total.num_generation_tokens += part.num_generation_tokens;
  total.prefix_cache_queries += part.prefix_cache_queries;
  total.prefix_cache_hits += part.prefix_cache_hits;
  total.sum_batch_size += part.sum_batch_size;
  total.kv_utilization_sum += part.kv_utilization_sum;
  total.executor_idle_s += part.executor_idle_s;
  total.executor_busy_s += part.executor_busy_s;
  total.device_idle_s += part.device_idle_s;
  total.device_busy_s += part.device_busy_s;
  total.executor_host_s += part.executor_host_s;
  total.num_graph_steps += part.num_graph_steps;
  total.iteration_tokens.merge(part.iteration_tokens);
  total.spec_decode_num_drafts += part.spec_decode_num_drafts;
  total.spec_decode_num_draft_tokens += part.spec_decode_num_draft_tokens;
  total.spec_decode_num_accepted_tokens += part.spec_decode_num_accepted_tokens;
  std::vector<std::uint64_t>& per_pos = total.spec_decode_accepted_per_pos;
  if (per_pos.size() < part.spec_decode_accepted_per_pos.size()) {
    per_pos.resize(part.spec_decode_accepted_per_pos.size(), 0);
  }
  for (std::size_t i = 0; i < part.spec_decode_accepted_per_pos.size(); ++i) {
    per_pos[i] += part.spec_decode_accepted_per_pos[i];
  }
  // Replicas serve one model: the same experts, summed expert by expert.
  if (total.moe_expert_tokens.empty()) {
    total.moe_num_experts = part.moe_num_experts;
    total.moe_expert_tokens = part.moe_expert_tokens;
  } else if (total.moe_expert_tokens.size() == part.moe_expert_tokens.size()) {
    for (std::size_t i = 0; i < part.moe_expert_tokens.size(); ++i) {
      total.moe_expert_tokens[i] += part.moe_expert_tokens[i];
    }
  }
}

engine_stats sum_engine_stats(std::span<const engine_stats> parts) {
  engine_stats total;
  double used_blocks = 0.0;
  for (const engine_stats& part : parts) {
    add_engine_stats(total, part);
    used_blocks += part.kv_usage * static_cast<double>(part.num_total_blocks);
  }
  if (total.num_total_blocks > 0)
    total.kv_usage = used_blocks / static_cast<double>(total.num_total_blocks);
  return total;
}

}  // namespace pagedserve
