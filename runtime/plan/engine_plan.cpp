#include "runtime/plan/engine_plan.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <string>

#include "common/num_blocks.h"
#include "kernels/backend_registry.h"
#include "runtime/forward/decode_graphs.h"
#include "runtime/forward/kv_pool_sizing.h"
#include "runtime/forward/model_forward.h"

namespace pagedserve {
namespace {

std::uint32_t clamp_blocks(std::int64_t blocks) {
  // One below the type's top: the cache adds its padding block.
  return static_cast<std::uint32_t>(std::clamp<std::int64_t>(
      blocks, 1, std::int64_t{std::numeric_limits<std::uint32_t>::max()} - 1));
}

std::int64_t blocks_per_sequence(const sched::scheduler_config& sched) {
  return num_blocks_for(sched.max_model_len, sched.block_size);
}

// Host memory: max_num_seqs sequences of max_model_len, capped at k_default_kv_bytes, but
// never below one full sequence.
std::uint32_t default_num_blocks(const sched::scheduler_config& sched,
                                 std::int64_t bytes_per_block) {
  const std::int64_t per_sequence = blocks_per_sequence(sched);
  const std::int64_t wanted = per_sequence * sched.max_num_seqs;
  const std::int64_t affordable = k_default_kv_bytes / std::max<std::int64_t>(1, bytes_per_block);
  return clamp_blocks(std::max(per_sequence, std::min(wanted, affordable)));
}

// Device memory: what gpu_memory_utilization leaves after the profiling forward.
status size_from_device_memory(const engine_config& config, forward::model_forward& fwd,
                               engine_plan& plan) {
  forward::kv_pool_request request;
  request.gpu_memory_utilization = config.gpu_memory_utilization;
  request.block_size = config.sched.block_size;
  request.max_num_batched_tokens = config.sched.max_num_batched_tokens;
  request.max_num_seqs = config.sched.max_num_seqs;
  request.max_model_len = config.sched.max_model_len;
  request.cache_dtype = plan.kv_cache_dtype;
  auto pool = forward::plan_kv_pool(fwd, request);
  if (!pool) return pool.err();
  plan.sizing = pool_sizing::device_memory;
  plan.device_total_bytes = pool->total_bytes;
  plan.in_use_bytes = pool->in_use_bytes;
  plan.sched.num_blocks = clamp_blocks(pool->num_blocks);
  return status::success();
}

// Speculative decoding's settings. Verification reads several positions' logits per
// sequence and the proposers read the accepted tokens on the host, so a backend that
// samples on the device (CUDA) samples on the host with speculation on: its forward, the
// draft's and the graphs stay on the device, and a step's tokens come back before the next
// step's proposals are made (as they must: a proposal continues the accepted tokens).
status plan_speculation(const engine_config& config, engine_plan& plan) {
  if (!config.speculative.enabled()) return status::success();
  plan.samples_on_device = false;
  plan.speculative = with_defaults(config.speculative);
  plan.sched.num_speculative_tokens = config.speculative.num_speculative_tokens;
  plan.sched.adaptive_speculation = config.speculative.adaptive;
  return status::success();
}

std::string format(const char* pattern, double a, double b = 0.0, double c = 0.0) {
  char text[256];
  std::snprintf(text, sizeof text, pattern, a, b, c);
  return text;
}

}  // namespace

double engine_plan::max_concurrency() const {
  return static_cast<double>(kv_capacity_tokens()) / static_cast<double>(sched.max_model_len);
}

kernels::dtype plan_compute_type(const engine_config& config, const model_config& model) {
  if (config.dtype != "auto") return *kernels::parse_compute_type(config.dtype);
  if (config.backend == "cpu") return kernels::dtype::f32;
  return model.dtype == weight_dtype::f16 ? kernels::dtype::f16 : kernels::dtype::bf16;
}

kernels::backend_options plan_backend_options(const engine_config& config) {
  return {config.cpu_activation_dtype == "int8"};
}

status check_fits_model(const engine_config& config, const model_config& model) {
  if (model.max_position_embeddings > 0 &&
      config.sched.max_model_len > static_cast<std::uint64_t>(model.max_position_embeddings)) {
    return make_error(error_code::invalid_argument,
                      "sched.max_model_len " + std::to_string(config.sched.max_model_len) +
                          " exceeds the model's max_position_embeddings " +
                          std::to_string(model.max_position_embeddings));
  }
  return status::success();
}

engine_config with_model_context(engine_config config, const model_config& model) {
  const std::uint32_t default_len = sched::scheduler_config{}.max_model_len;
  if (config.sched.max_model_len == default_len && model.max_position_embeddings > 0 &&
      model.max_position_embeddings < std::int64_t{default_len}) {
    config.sched.max_model_len = static_cast<std::uint32_t>(model.max_position_embeddings);
  }
  return config;
}

result<engine_plan> plan_engine(const engine_config& config, forward::model_forward& forward,
                                const model_config* draft) {
  kernels::backend& backend = forward.backend();
  engine_plan plan;
  plan.samples_on_device = backend.samples_on_device();
  plan.compute_type = backend.compute_type();
  plan.sched = config.sched;
  if (status ok = plan_speculation(config, plan); !ok) return ok.err();
  plan.weight_bytes = forward.weights().num_bytes();
  plan.quantized_layers = forward.weights().quantized_layers;
  plan.kv_cache_dtype = *forward::parse_kv_cache_dtype(config.kv_cache_dtype);
  plan.bytes_per_block = forward::kv_cache_layout::for_model(
                             forward.config(), 1, config.sched.block_size, plan.kv_cache_dtype)
                             .bytes_per_block(plan.compute_type);
  if (draft != nullptr) {
    plan.draft_bytes_per_block =
        forward::kv_cache_layout::for_model(*draft, 1, config.sched.block_size, plan.kv_cache_dtype)
            .bytes_per_block(plan.compute_type);
    plan.bytes_per_block += plan.draft_bytes_per_block;
  }
  if (config.sched.num_blocks > 0) {
    plan.sizing = pool_sizing::configured;
  } else if (backend.memory()) {
    if (status ok = size_from_device_memory(config, forward, plan); !ok) return ok.err();
  } else {
    plan.sizing = pool_sizing::default_for_host;
    plan.sched.num_blocks = default_num_blocks(config.sched, plan.bytes_per_block);
  }
  plan.kv_bytes = (std::int64_t{plan.sched.num_blocks} + 1) * plan.bytes_per_block;
  if (!config.enforce_eager && backend.memory()) {
    plan.decode_graph_batch_sizes = forward::default_decode_batch_sizes(config.sched.max_num_seqs);
  }
  plan.max_waiting_requests = config.max_waiting_requests;
  plan.max_n = config.max_n;
  return plan;
}

std::vector<std::string> describe_plan(const engine_config& config, const engine_plan& plan,
                                       std::size_t num_decode_graphs) {
  constexpr double gib = 1024.0 * 1024.0 * 1024.0;
  std::vector<std::string> lines;
  if (plan.sizing == pool_sizing::device_memory) {
    lines.push_back(format(
        "KV cache sized from gpu_memory_utilization %.2f: %.2f GiB of %.2f GiB device memory in "
        "use after the profiling forward",
        config.gpu_memory_utilization, static_cast<double>(plan.in_use_bytes) / gib,
        static_cast<double>(plan.device_total_bytes) / gib));
  }
  lines.push_back(
      "KV cache: " + std::to_string(plan.sched.num_blocks) + " blocks of " +
      std::to_string(plan.sched.block_size) + " tokens, " + std::to_string(plan.bytes_per_block) +
      " bytes each in " + std::string(forward::to_string(plan.kv_cache_dtype)) + " (" +
      format("%.2f", static_cast<double>(plan.kv_bytes) / gib) +
      " GiB in all); maximum concurrency for " + std::to_string(plan.sched.max_model_len) +
      " tokens per request: " + format("%.2fx", plan.max_concurrency()));
  if (plan.draft_bytes_per_block > 0) {
    lines.push_back("speculative draft_model " + plan.speculative.model + ": its K/V take " +
                    std::to_string(plan.draft_bytes_per_block) + " of each block's " +
                    std::to_string(plan.bytes_per_block) + " bytes");
  }
  const bool none_captured =
      num_decode_graphs == 0 && config.backend != "cpu" && !config.enforce_eager;
  lines.push_back(config.backend + " backend: sampling on the " +
                  (plan.samples_on_device ? "device"
                   : plan.speculative.enabled() && config.backend != "cpu"
                       ? "host (speculative decoding verifies there)"
                       : "host") +
                  ", " + std::to_string(num_decode_graphs) + " decode graphs" +
                  (none_captured ? " (the backend captures none)" : ""));
  return lines;
}

}  // namespace pagedserve
