// step_executor::create: the model_step_executor over a plan: the planned KV pool, the
// device sampler where the backend samples, the planned decode graphs.

#include "runtime/worker/step_executor.h"

#include <memory>
#include <utility>

#include "common/num_blocks.h"
#include "runtime/forward/decode_graphs.h"
#include "runtime/worker/model_step_executor.h"

namespace pagedserve {
namespace {

// The workspace is reserved first for the largest step the scheduler plans: capture
// freezes it.
std::size_t capture_graphs(const engine_plan& plan, forward::model_forward& fwd,
                           forward::paged_kv_cache& cache) {
  if (plan.decode_graph_batch_sizes.empty()) return 0;
  const sched::scheduler_config& s = plan.sched;
  const std::int64_t width = num_blocks_for(s.max_model_len, s.block_size);
  fwd.workspace().reserve(s.max_num_batched_tokens, s.max_num_seqs, width);
  forward::decode_graph_options options;
  options.batch_sizes = plan.decode_graph_batch_sizes;
  options.max_context_len = s.max_model_len;
  return fwd.enable_decode_graphs(cache, options);
}

}  // namespace

std::unique_ptr<step_executor> step_executor::create(step_executor_parts parts) {
  const engine_plan& plan = *parts.plan;
  kernels::backend& backend = *parts.backend;
  auto cache = std::make_unique<forward::paged_kv_cache>(
      backend, forward::kv_cache_layout::for_model(parts.forward->config(), plan.sched.num_blocks,
                                                   plan.sched.block_size, plan.kv_cache_dtype));
  std::unique_ptr<device_sampler> sampler;
  if (plan.samples_on_device) {
    sampler = std::make_unique<device_sampler>(backend, plan.sched.max_num_seqs,
                                               parts.forward->config().vocab_size);
  }
  const std::size_t num_graphs = capture_graphs(plan, *parts.forward, *cache);
  std::unique_ptr<spec::proposer> proposer;
  std::unique_ptr<spec::draft_model_proposer> draft;
  if (parts.draft != nullptr) {
    // The draft's layers over the same blocks: engine_plan counted them in bytes_per_block.
    auto draft_cache = std::make_unique<forward::paged_kv_cache>(
        backend, forward::kv_cache_layout::for_model(parts.draft->config(), plan.sched.num_blocks,
                                                     plan.sched.block_size, plan.kv_cache_dtype));
    draft = std::make_unique<spec::draft_model_proposer>(std::move(parts.draft),
                                                         std::move(draft_cache));
  } else if (plan.speculative.enabled()) {
    auto made = spec::make_proposer(plan.speculative);
    if (!made) detail::die(made.err().message);  // plan_engine checked the config
    proposer = std::move(*made);
  }
  return std::make_unique<detail::model_step_executor>(std::move(parts), std::move(cache),
                                                       std::move(sampler), num_graphs,
                                                       std::move(proposer), std::move(draft));
}

}  // namespace pagedserve
