#include "api/scheduler_config.h"

#include "api/scheduler_keys.h"

#include <string>

namespace pagedserve::sched {

status validate(const scheduler_config& config) {
  auto invalid = [](std::string message) {
    return status(make_error(error_code::invalid_argument, std::move(message)));
  };
  if (status s = validate_keys(scheduler_keys(), config); !s) return s;
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
