#include "api/engine_config.h"

#include <string>

namespace pagedserve {

namespace {

status invalid(std::string message) {
  return status(make_error(error_code::invalid_argument, std::move(message)));
}

std::string quoted(const std::string& value) { return "'" + value + "'"; }

status validate_model(const engine_config& config) {
  if (!config.model_dir.empty() && !config.model_config_file.empty()) {
    return invalid("model_dir (" + quoted(config.model_dir) + ") and model_config_file (" +
                   quoted(config.model_config_file) + ") are exclusive: set one");
  }
  if (config.load_format != "auto" && config.load_format != "dummy") {
    return invalid("load_format must be auto or dummy, got " + quoted(config.load_format));
  }
  if (config.load_format == "dummy" && config.model_dir.empty() &&
      config.model_config_file.empty()) {
    return invalid("load_format 'dummy' needs model_dir or model_config_file (both are empty)");
  }
  if (config.quantization != "auto" && config.quantization != "awq" &&
      config.quantization != "gptq" && config.quantization != "fp8" &&
      config.quantization != "compressed-tensors") {
    return invalid("quantization must be auto, awq, gptq, fp8 or compressed-tensors, got " +
                   quoted(config.quantization));
  }
  if (config.kv_cache_dtype != "auto" && config.kv_cache_dtype != "fp8" &&
      config.kv_cache_dtype != "fp8_e4m3") {
    return invalid("kv_cache_dtype must be auto, fp8 or fp8_e4m3, got " +
                   quoted(config.kv_cache_dtype));
  }
  if (config.cpu_activation_dtype != "fp32" && config.cpu_activation_dtype != "int8") {
    return invalid("cpu_activation_dtype must be fp32 or int8, got " +
                   quoted(config.cpu_activation_dtype));
  }
  if (config.cpu_activation_dtype == "int8" && config.backend != "cpu") {
    return status(make_error(
        error_code::unsupported,
        "cpu_activation_dtype int8 is a cpu backend option (backend is " + config.backend + ")"));
  }
  if (config.generation_config != "auto" && config.generation_config != "vllm") {
    return invalid("generation_config must be auto or vllm, got " +
                   quoted(config.generation_config));
  }
  if (config.backend != "cpu" && config.backend != "cuda") {
    return invalid("backend must be cpu or cuda, got " + quoted(config.backend));
  }
  if (config.dtype != "auto" && config.dtype != "float32" && config.dtype != "bfloat16" &&
      config.dtype != "float16") {
    return invalid("dtype must be auto, float32, bfloat16 or float16, got " + quoted(config.dtype));
  }
  if (config.backend == "cpu" && config.dtype != "auto" && config.dtype != "float32") {
    return invalid("dtype " + quoted(config.dtype) +
                   " needs backend cuda: the cpu backend computes in float32 only");
  }
  if (!(config.gpu_memory_utilization > 0.0 && config.gpu_memory_utilization <= 1.0)) {
    return invalid("gpu_memory_utilization must be in (0, 1], got " +
                   std::to_string(config.gpu_memory_utilization));
  }
  return status::success();
}

}  // namespace

status validate(const engine_config& config) {
  if (status s = validate_model(config); !s) return s;
  if (status s = sched::validate(config.sched); !s) {
    return invalid("sched: " + s.err().message);
  }
  if (config.max_waiting_requests < 1) {
    return invalid("max_waiting_requests must be at least 1, got " +
                   std::to_string(config.max_waiting_requests));
  }
  if (config.max_n < 1 || config.max_n > 256) {
    return invalid("max_n must lie in [1, 256], got " + std::to_string(config.max_n));
  }
  return status::success();
}

}  // namespace pagedserve
