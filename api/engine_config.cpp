#include "api/engine_config.h"

#include "api/engine_keys.h"

#include <string>

namespace pagedserve {

namespace {

status invalid(std::string message) {
  return status(make_error(error_code::invalid_argument, std::move(message)));
}

std::string quoted(const std::string& value) { return "'" + value + "'"; }

// The rules between model keys (each key alone is checked by its row).
status validate_model(const engine_config& config) {
  if (!config.model_dir.empty() && !config.model_config_file.empty()) {
    return invalid("model_dir (" + quoted(config.model_dir) + ") and model_config_file (" +
                   quoted(config.model_config_file) + ") are exclusive: set one");
  }
  if (config.load_format == "dummy" && config.model_dir.empty() &&
      config.model_config_file.empty()) {
    return invalid("load_format 'dummy' needs model_dir or model_config_file (both are empty)");
  }
  if (config.cpu_activation_dtype == "int8" && config.backend != "cpu") {
    return status(make_error(
        error_code::unsupported,
        "cpu_activation_dtype int8 is a cpu backend option (backend is " + config.backend + ")"));
  }
  if (config.backend == "cpu" && config.dtype != "auto" && config.dtype != "float32") {
    return invalid("dtype " + quoted(config.dtype) +
                   " needs backend cuda: the cpu backend computes in float32 only");
  }
  return status::success();
}

}  // namespace

status validate(const engine_config& config) {
  // Each key's own rule (api/engine_keys.cpp), then the rules between keys.
  if (status s = validate_keys(engine_keys(), config); !s) return s;
  if (status s = validate_model(config); !s) return s;
  return sched::validate(config.sched);
}

}  // namespace pagedserve
