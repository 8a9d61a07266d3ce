// The compressed-tensors reader: llm-compressor's FP8 checkpoints (presets FP8, FP8_DYNAMIC,
// FP8_BLOCK and FP8 weight-only), one config group targeting every Linear. Field names and
// defaults are compressed-tensors' QuantizationArgs (QUANTIZATION.md section 3).

#include "runtime/quant/quant_spec_parse.h"

namespace pagedserve::quant::spec_parse {
namespace {

constexpr std::string_view top_keys[] = {
    "quant_method",    "format",           "quantization_status",
    "config_groups",   "ignore",           "kv_cache_scheme",
    "sparsity_config", "transform_config", "global_compression_ratio",
    "version",         "provider"};

constexpr std::string_view group_keys[] = {"targets", "weights", "input_activations",
                                           "output_activations", "format"};

constexpr std::string_view args_keys[] = {
    "num_bits", "type",     "symmetric",   "group_size", "strategy", "block_structure",
    "dynamic",  "actorder", "scale_dtype", "zp_dtype",   "observer", "observer_kwargs"};

// `fields` reads one nested object; its prefix ("config_groups.group_0.") names the path.
json_fields nested(const json_fields& parent, const boost::json::object& object,
                   std::string prefix) {
  return json_fields(object, parent.source(), std::move(prefix));
}

void check_format(json_fields& fields, std::string_view key, const std::string& format) {
  if (format == "float-quantized" || format == "naive-quantized") return;
  const char* hint = format == "pack-quantized" ? "not yet supported" : "not supported";
  fields.fail(
      error_code::unsupported, key,
      "is '" + format + "', which is " + hint + " (supported: float-quantized, naive-quantized)");
}

// compressed-tensors' own default when strategy is absent: from group_size.
std::string strategy_of(json_fields& fields) {
  if (auto strategy = fields.optional_string("strategy")) return lower(*strategy);
  const std::optional<std::int64_t> group_size = fields.optional_int("group_size");
  if (!group_size) return "tensor";
  return *group_size == -1 ? "channel" : "group";
}

// The checks every float8 QuantizationArgs shares (weights and input activations).
void check_float8(json_fields& fields, const boost::json::object& args) {
  if (auto type = fields.optional_string("type"); !type || lower(*type) != "float") {
    fields.fail(error_code::unsupported, "type",
                "is '" + type.value_or("int") + "', which is not supported (float)");
  }
  if (const std::int64_t bits = fields.optional_int("num_bits").value_or(8); bits != 8) {
    fields.fail(error_code::unsupported, "num_bits",
                "is " + std::to_string(bits) + ", which is not supported (8)");
  }
  if (!fields.bool_or("symmetric", true)) {
    fields.fail(error_code::unsupported, "symmetric", "is false, which is not supported (fp8)");
  }
  for (std::string_view key : {"actorder", "scale_dtype", "zp_dtype"}) {
    if (const boost::json::value* value = value_of(args, key)) {
      fields.fail(error_code::unsupported, key,
                  "is " + describe(*value) + ", which is not supported (null)");
    }
  }
  refuse_unknown_keys(fields, args, args_keys);
}

// `dynamic` is true, false or "local" (NVFP4's local scales, not ours).
bool dynamic_of(json_fields& fields, const boost::json::object& args) {
  const boost::json::value* value = value_of(args, "dynamic");
  if (value != nullptr && !value->is_bool()) {
    fields.fail(error_code::unsupported, "dynamic",
                "is " + describe(*value) + ", which is not supported (true, false)");
    return false;
  }
  return value != nullptr && value->get_bool();
}

void read_weights(json_fields& fields, const boost::json::object& args, quant_spec& spec) {
  check_float8(fields, args);
  if (dynamic_of(fields, args)) {
    fields.fail(error_code::unsupported, "dynamic", "is true, which is not supported (false)");
  }
  const std::string strategy = strategy_of(fields);
  const std::int64_t group_size = fields.optional_int("group_size").value_or(-1);
  if (strategy == "tensor" || strategy == "channel") {
    spec.weight_strategy = strategy == "tensor" ? scale_strategy::tensor : scale_strategy::channel;
  } else if (strategy == "block") {
    const auto block = block_shape(fields, args, "block_structure");
    if (!block && fields.ok()) fields.fail(error_code::not_found, "block_structure", "is missing");
    spec.weight_strategy = scale_strategy::block;
    spec.weight_block_rows = block ? block->first : 0;
    spec.weight_block_cols = block ? block->second : 0;
  } else {
    fields.fail(error_code::unsupported, "strategy",
                "is '" + strategy +
                    "', which is not supported for float weights (tensor, "
                    "channel, block)");
  }
  if (strategy != "block" && value_of(args, "block_structure") != nullptr) {
    fields.fail(error_code::invalid_argument, "block_structure",
                "is set but strategy is '" + strategy + "' (only block has one)");
  }
  if (group_size != -1) {
    fields.fail(error_code::invalid_argument, "group_size",
                "is " + std::to_string(group_size) + " but strategy is '" + strategy + "'");
  }
}

void read_input_activations(json_fields& fields, const boost::json::object& args,
                            quant_spec& spec) {
  check_float8(fields, args);
  const bool dynamic = dynamic_of(fields, args);
  const std::string strategy = strategy_of(fields);
  if (dynamic && strategy == "token") {
    spec.activations = activation_scheme::dynamic_per_token;
  } else if (dynamic && strategy == "group") {
    spec.activations = activation_scheme::dynamic_per_group;
    spec.activation_group_size = fields.required_int("group_size");
    if (fields.ok() && spec.activation_group_size <= 0) {
      fields.fail(error_code::invalid_argument, "group_size",
                  "is " + std::to_string(spec.activation_group_size) + "; it must be positive");
    }
  } else if (!dynamic && strategy == "tensor") {
    spec.activations = activation_scheme::static_per_tensor;
  } else {
    fields.fail(error_code::unsupported, "strategy",
                "is '" + strategy + "' with dynamic " + (dynamic ? "true" : "false") +
                    ", which is not supported (dynamic token or group, static tensor)");
  }
}

void check_targets(json_fields& fields, const boost::json::object& group) {
  const std::vector<std::string> targets = string_list(fields, group, "targets");
  if (fields.ok() && targets != std::vector<std::string>{"Linear"}) {
    const boost::json::value* value = group.if_contains("targets");
    fields.fail(error_code::unsupported, "targets",
                "is " + (value ? describe(*value) : std::string("missing")) +
                    ", which is not supported (only [\"Linear\"])");
  }
}

void read_group(json_fields& top, std::string_view name, const boost::json::object& group,
                quant_spec& spec) {
  json_fields fields = nested(top, group, "config_groups." + std::string(name) + ".");
  check_targets(fields, group);
  if (auto format = fields.optional_string("format")) check_format(fields, "format", *format);
  if (const boost::json::object* weights = fields.optional_object("weights")) {
    json_fields args = nested(fields, *weights, "config_groups." + std::string(name) + ".weights.");
    read_weights(args, *weights, spec);
    fields.adopt(args);
  } else {
    fields.fail(error_code::not_found, "weights", "is missing");
  }
  if (const boost::json::object* input = fields.optional_object("input_activations")) {
    json_fields args =
        nested(fields, *input, "config_groups." + std::string(name) + ".input_activations.");
    read_input_activations(args, *input, spec);
    fields.adopt(args);
  }
  if (const boost::json::value* output = value_of(group, "output_activations")) {
    fields.fail(error_code::unsupported, "output_activations",
                "is " + describe(*output) + ", which is not supported (null)");
  }
  refuse_unknown_keys(fields, group, group_keys);
  top.adopt(fields);
}

// Exactly one group: the scheme every quantized Linear shares.
void read_config_groups(json_fields& fields, const boost::json::object& config, quant_spec& spec) {
  const boost::json::object* groups = fields.optional_object("config_groups");
  if (groups == nullptr || groups->empty()) {
    if (fields.ok()) fields.fail(error_code::not_found, "config_groups", "is missing or empty");
    return;
  }
  if (groups->size() != 1) {
    fields.fail(
        error_code::unsupported, "config_groups",
        "has " + std::to_string(groups->size()) + " groups, which is not supported (exactly one)");
    return;
  }
  const auto& [name, group] = *groups->begin();
  if (!group.is_object()) {
    fields.fail(error_code::invalid_argument, "config_groups",
                "must hold objects, got " + describe(group));
    return;
  }
  read_group(fields, name, group.get_object(), spec);
  const bool has_format = config.contains("format") || group.get_object().contains("format");
  if (fields.ok() && !has_format) fields.fail(error_code::not_found, "format", "is missing");
}

void check_kv_cache_scheme(json_fields& fields, const boost::json::object& config) {
  const boost::json::object* kv = fields.optional_object("kv_cache_scheme");
  if (kv == nullptr) return;
  json_fields args = nested(fields, *kv, "kv_cache_scheme.");
  const std::string type = lower(args.optional_string("type").value_or("int"));
  const std::int64_t bits = args.optional_int("num_bits").value_or(8);
  const std::string strategy = lower(args.optional_string("strategy").value_or("tensor"));
  if (args.ok() && (type != "float" || bits != 8 || strategy != "tensor")) {
    fields.fail(error_code::unsupported, "kv_cache_scheme",
                "is " + describe(config.at("kv_cache_scheme")) +
                    ", which is not supported (float, num_bits 8, strategy tensor)");
  }
  fields.adopt(args);
}

void read_ignore(json_fields& fields, const boost::json::object& config, quant_spec& spec) {
  for (std::string& entry : string_list(fields, config, "ignore")) {
    if (!entry.starts_with("re:")) {
      spec.ignored_modules.push_back(std::move(entry));
      continue;
    }
    std::string pattern = entry.substr(3);
    if (!regex::compile(anchored_at_start(pattern))) {
      fields.fail(error_code::invalid_argument, "ignore",
                  "holds '" + entry + "', which is not a regular expression we can read");
      continue;
    }
    spec.ignored_patterns.push_back(std::move(pattern));
  }
}

void check_status(json_fields& fields, const boost::json::object& config) {
  if (auto status = fields.optional_string("quantization_status");
      status && *status != "compressed") {
    fields.fail(error_code::unsupported, "quantization_status",
                "is '" + *status + "', which is not supported (compressed)");
  }
  if (auto format = fields.optional_string("format")) check_format(fields, "format", *format);
  for (std::string_view key : {"sparsity_config", "transform_config"}) {
    const boost::json::value* value = value_of(config, key);
    if (value != nullptr && !(value->is_object() && value->get_object().empty())) {
      fields.fail(error_code::unsupported, key,
                  "is " + describe(*value) + ", which is not supported (null)");
    }
  }
}

}  // namespace

void read_compressed_tensors(json_fields& fields, const boost::json::object& config,
                             quant_spec& spec) {
  check_status(fields, config);
  read_config_groups(fields, config, spec);
  check_kv_cache_scheme(fields, config);
  read_ignore(fields, config, spec);
  refuse_unknown_keys(fields, config, top_keys);
}

}  // namespace pagedserve::quant::spec_parse
