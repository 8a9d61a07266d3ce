#include "runtime/forward/kv_pool_sizing.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>

#include "common/num_blocks.h"

namespace pagedserve::forward {
namespace {

std::string gib(std::int64_t bytes) {
  const double value = static_cast<double>(bytes) / static_cast<double>(std::int64_t{1} << 30);
  std::string text = std::to_string(std::round(value * 100.0) / 100.0);
  text.erase(text.find('.') + 3);
  return text + " GiB";
}

status validate(const kv_pool_request& r) {
  if (!(r.gpu_memory_utilization > 0.0 && r.gpu_memory_utilization <= 1.0)) {
    return make_error(error_code::invalid_argument,
                      "gpu_memory_utilization must be in (0, 1], got " +
                          std::to_string(r.gpu_memory_utilization));
  }
  if (r.block_size < 1 || r.max_num_batched_tokens < 1 || r.max_num_seqs < 1 ||
      r.max_model_len < 1) {
    return make_error(error_code::invalid_argument,
                      "block_size, max_num_batched_tokens, max_num_seqs and max_model_len must "
                      "be at least 1");
  }
  return status::success();
}

error too_small(const kv_pool_plan& plan, const kv_pool_request& request) {
  return make_error(error_code::capacity_exceeded,
                    "the KV cache does not fit one sequence of max_model_len " +
                        std::to_string(request.max_model_len) + ": " + gib(plan.budget_bytes) +
                        " of " + gib(plan.total_bytes) + " (gpu_memory_utilization " +
                        std::to_string(request.gpu_memory_utilization) + ") minus " +
                        gib(plan.in_use_bytes) + " in use leaves room for " +
                        std::to_string(plan.num_blocks) + " blocks of " +
                        std::to_string(request.block_size) +
                        " tokens; raise gpu_memory_utilization or lower max_model_len, "
                        "max_num_batched_tokens or max_num_seqs");
}

}  // namespace

forward_batch profile_step::batch() const {
  forward_batch b;
  for (std::size_t i = 0; i < tokens.size(); ++i) b.sequences.push_back({tokens[i], 0, tables[i]});
  return b;
}

profile_step make_profile_step(const kv_pool_request& request) {
  const std::int64_t num_seqs = std::min(request.max_num_seqs, request.max_num_batched_tokens);
  profile_step step;
  std::int64_t next_block = 0;
  for (std::int64_t s = 0; s < num_seqs; ++s) {
    // Shares differ by at most one token and add up to max_num_batched_tokens.
    const std::int64_t length = request.max_num_batched_tokens / num_seqs +
                                (s < request.max_num_batched_tokens % num_seqs ? 1 : 0);
    step.tokens.emplace_back(static_cast<std::size_t>(length), token_id{0});
    std::vector<block_id> table;
    for (std::int64_t b = 0; b < num_blocks_for(length, request.block_size); ++b) {
      table.emplace_back(static_cast<std::uint32_t>(next_block++));
    }
    step.tables.push_back(std::move(table));
  }
  step.num_blocks = next_block;
  return step;
}

result<kv_pool_plan> plan_kv_pool(model_forward& forward, const kv_pool_request& request) {
  if (const status ok = validate(request); !ok) return ok.err();
  kernels::backend& backend = forward.backend();
  if (!backend.memory()) {
    return make_error(error_code::unsupported,
                      "backend '" + std::string(backend.name()) +
                          "' has no device memory to size the KV cache from; set num_blocks");
  }
  const std::int64_t width = num_blocks_for(request.max_model_len, request.block_size);
  const std::int64_t bytes_per_block =
      kv_cache_layout::for_model(forward.config(), 1, request.block_size, request.cache_dtype)
          .bytes_per_block(backend.compute_type());
  // Hopeless before profiling: one longest sequence alone would overflow the budget.
  {
    const kernels::memory_figures now = *backend.memory();
    kv_pool_plan early;
    early.total_bytes = now.total_bytes;
    early.budget_bytes = static_cast<std::int64_t>(static_cast<double>(now.total_bytes) *
                                                   request.gpu_memory_utilization);
    early.in_use_bytes = now.total_bytes - now.free_bytes;
    early.bytes_per_block = bytes_per_block;
    if (static_cast<double>(width) * static_cast<double>(bytes_per_block) >
        static_cast<double>(early.budget_bytes - early.in_use_bytes)) {
      early.num_blocks = std::max<std::int64_t>(
          (early.budget_bytes - early.in_use_bytes) / bytes_per_block - 1, 0);
      return too_small(early, request);
    }
  }
  forward.workspace().reserve(request.max_num_batched_tokens,
                              std::max(request.max_num_seqs, std::int64_t{1}), width);
  const profile_step step = make_profile_step(request);
  {
    auto scratch = std::make_unique<paged_kv_cache>(
        backend, kv_cache_layout::for_model(forward.config(), step.num_blocks, request.block_size,
                                            request.cache_dtype));
    (void)forward.run(step.batch(), *scratch);
  }
  const kernels::memory_figures memory = *backend.memory();

  kv_pool_plan plan;
  plan.bytes_per_block = bytes_per_block;
  plan.total_bytes = memory.total_bytes;
  plan.budget_bytes = static_cast<std::int64_t>(static_cast<double>(memory.total_bytes) *
                                                request.gpu_memory_utilization);
  plan.in_use_bytes = memory.total_bytes - memory.free_bytes;
  // The driver rounds every allocation up to its page (2 MiB); the cache is one K and one V
  // allocation per layer.
  const std::int64_t rounding = 2 * forward.config().num_layers * (std::int64_t{2} << 20);
  const std::int64_t room = plan.budget_bytes - plan.in_use_bytes - rounding;
  plan.num_blocks = std::max<std::int64_t>(room / plan.bytes_per_block - 1, 0);
  plan.kv_bytes = (plan.num_blocks + 1) * plan.bytes_per_block;
  if (plan.num_blocks * request.block_size < request.max_model_len) return too_small(plan, request);
  return plan;
}

}  // namespace pagedserve::forward
