#include "api/scheduler_config.h"

#include <string>

namespace pagedserve::sched {

status validate(const scheduler_config& config) {
  auto invalid = [](std::string message) {
    return status(make_error(error_code::invalid_argument, std::move(message)));
  };
  if (config.max_num_seqs == 0) return invalid("max_num_seqs must be at least 1");
  if (config.max_num_batched_tokens == 0) return invalid("max_num_batched_tokens must be >= 1");
  if (config.max_model_len == 0) return invalid("max_model_len must be at least 1");
  if (config.block_size == 0) return invalid("block_size must be at least 1");
  if (!(config.watermark >= 0.0 && config.watermark < 1.0)) {
    return invalid("watermark must lie in [0, 1), got " + std::to_string(config.watermark));
  }
  if (!config.enable_chunked_prefill && config.max_num_batched_tokens < config.max_model_len) {
    return invalid("without chunked prefill max_num_batched_tokens (" +
                   std::to_string(config.max_num_batched_tokens) + ") must be >= max_model_len (" +
                   std::to_string(config.max_model_len) +
                   "), or a long prompt could never be scheduled");
  }
  return status::success();
}

std::string_view to_string(scheduling_policy policy) {
  switch (policy) {
    case scheduling_policy::fcfs:
      return "fcfs";
    case scheduling_policy::priority:
      return "priority";
  }
  return "unknown";
}

}  // namespace pagedserve::sched
