// The int4/int8 readers: AutoAWQ's GEMM config (QUANTIZATION.md section 1), and AutoGPTQ's,
// GPTQModel's and transformers' GPTQ configs as vLLM's gptq / gptq_marlin read them
// (section 2).
#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "runtime/quant/quant_spec_parse.h"

namespace pagedserve::quant::spec_parse {
namespace {

constexpr std::string_view gptq_keys[] = {
    // read below
    "quant_method", "bits", "group_size", "desc_act", "sym", "checkpoint_format", "format",
    "lm_head", "dynamic", "modules_in_block_to_quantize", "pack_dtype", "is_marlin_format",
    // AutoGPTQ / GPTQModel calibration records: they do not change the stored layout
    "damp_percent", "static_groups", "true_sequential", "model_name_or_path",
    "model_file_base_name", "meta", "method", "v2", "mse", "hyb_act", "damp_auto_increment",
    "act_group_aware", "offload_to_disk", "offload_to_disk_path", "rotation", "adapter",
    // transformers' GPTQConfig writes every field it has, calibration and kernel choices
    // included (use_exllama, exllama_config, backend pick a kernel, not a layout)
    "tokenizer", "dataset", "use_cuda_fp16", "model_seqlen", "block_name_to_quantize",
    "module_name_preceding_first_block", "batch_size", "pad_token_id", "use_exllama",
    "disable_exllama", "max_input_length", "exllama_config", "cache_block_outputs", "backend"};

// The block linears a GPTQ checkpoint must quantize: a list that leaves one out keeps it
// in float, which we do not load.
constexpr std::string_view block_linears[] = {"q_proj",    "k_proj",  "v_proj",   "o_proj",
                                              "gate_proj", "up_proj", "down_proj"};

void read_bits(json_fields& fields, quant_spec& spec) {
  spec.bits = static_cast<int>(fields.required_int("bits"));
  if (fields.ok() && spec.bits != 4 && spec.bits != 8) {
    fields.fail(error_code::unsupported, "bits",
                fmt::format("is {}, which is not supported (4 or 8)", spec.bits));
  }
}

void read_group_size(json_fields& fields, quant_spec& spec) {
  spec.group_size = fields.required_int("group_size");
  if (fields.ok() && spec.group_size != -1 &&
      (spec.group_size <= 0 || spec.group_size > max_group_size)) {
    fields.fail(error_code::invalid_argument, "group_size",
                fmt::format("is {}; it must be -1 (one group per row) or in [1, {}]",
                            spec.group_size, max_group_size));
  }
}

// GPTQModel writes `format` and its deprecated alias `checkpoint_format`; AutoGPTQ only the
// latter. v1 ("gptq") stores each zero point minus one; v2 stores it as it is.
void read_format(json_fields& fields, quant_spec& spec) {
  const std::optional<std::string> legacy = fields.optional_string("checkpoint_format");
  const std::optional<std::string> format = fields.optional_string("format");
  if (legacy && format && lower(*legacy) != lower(*format)) {
    fields.fail(error_code::invalid_argument, "format",
                "is '" + *format + "' but checkpoint_format is '" + *legacy + "'; they must agree");
    return;
  }
  const char* key = format ? "format" : "checkpoint_format";
  const std::string value = format.value_or(legacy.value_or("gptq"));
  if (lower(value) == "gptq" || lower(value) == "gptq_v2") {
    spec.zeros_stored_minus_one = lower(value) == "gptq";
    return;
  }
  fields.fail(error_code::unsupported, key,
              "is '" + value + "', which is not supported (gptq, gptq_v2)");
}

// GPTQModel's per-module overrides (bits, group size, or skipping by regex).
void refuse_dynamic(json_fields& fields, const boost::json::object& config) {
  const boost::json::value* dynamic = value_of(config, "dynamic");
  if (dynamic == nullptr) return;
  if (!dynamic->is_object()) {
    fields.fail(error_code::invalid_argument, "dynamic",
                "must be an object, got " + describe(*dynamic));
  } else if (!dynamic->get_object().empty()) {
    fields.fail(error_code::unsupported, "dynamic",
                "is " + describe(*dynamic) + ", which is not supported (per-module overrides)");
  }
}

// Collects the names of any nesting of lists ([["self_attn.q_proj"], ["mlp.up_proj"]]).
bool collect_names(const boost::json::value& value, std::vector<std::string>& names) {
  if (value.is_string()) {
    names.emplace_back(value.get_string());
    return true;
  }
  if (!value.is_array()) return false;
  return std::all_of(
      value.get_array().begin(), value.get_array().end(),
      [&](const boost::json::value& element) { return collect_names(element, names); });
}

bool lists_linear(const std::vector<std::string>& names, std::string_view linear) {
  return std::any_of(names.begin(), names.end(), [&](std::string_view name) {
    return name == linear ||
           (name.ends_with(linear) && name[name.size() - linear.size() - 1] == '.');
  });
}

void check_modules_in_block(json_fields& fields, const boost::json::object& config) {
  constexpr std::string_view key = "modules_in_block_to_quantize";
  const boost::json::value* value = value_of(config, key);
  if (value == nullptr) return;
  std::vector<std::string> names;
  if (!collect_names(*value, names)) {
    fields.fail(error_code::invalid_argument, key,
                "must be lists of module names, got " + describe(*value));
    return;
  }
  for (std::string_view linear : block_linears) {
    if (!lists_linear(names, linear)) {
      fields.fail(error_code::unsupported, key,
                  "is " + describe(*value) + ", which leaves '" + std::string(linear) +
                      "' unquantized; only fully quantized blocks are supported");
      return;
    }
  }
}

void check_storage(json_fields& fields) {
  if (auto pack = fields.optional_string("pack_dtype"); pack && *pack != "int32") {
    fields.fail(error_code::unsupported, "pack_dtype",
                "is '" + *pack + "', which is not supported (int32)");
  }
  if (fields.bool_or("is_marlin_format", false)) {
    fields.fail(error_code::unsupported, "is_marlin_format",
                "is true, which is not supported (Marlin-repacked weights)");
  }
}

}  // namespace

// Keys that AWQ writers put in the config and that do not change the stored layout.
constexpr std::string_view awq_keys[] = {
    // AutoAWQ's to_transformers_dict
    "quant_method", "bits", "group_size", "zero_point", "version", "modules_to_not_convert",
    // its legacy quant_config.json
    "w_bit", "q_group_size",
    // transformers' AwqConfig: run-time choices (backend is checked below)
    "backend", "do_fuse", "fuse_max_seq_len", "modules_to_fuse", "exllama_config"};

void read_awq(json_fields& fields, const boost::json::object& config, quant_spec& spec) {
  spec.weight_strategy = scale_strategy::group;
  const char* bits_key = !fields.has("bits") && fields.has("w_bit") ? "w_bit" : "bits";
  spec.bits = static_cast<int>(fields.required_int(bits_key));
  if (fields.ok() && spec.bits != 4) {
    fields.fail(error_code::unsupported, bits_key,
                fmt::format("is {}, which is not supported (AWQ: 4)", spec.bits));
  }
  const char* group_key =
      !fields.has("group_size") && fields.has("q_group_size") ? "q_group_size" : "group_size";
  spec.group_size = fields.required_int(group_key);
  constexpr std::array<std::int64_t, 4> group_sizes = {-1, 32, 64, 128};  // Marlin's set
  if (fields.ok() &&
      std::find(group_sizes.begin(), group_sizes.end(), spec.group_size) == group_sizes.end()) {
    fields.fail(error_code::unsupported, group_key,
                fmt::format("is {}, which is not supported (-1, 32, 64, 128)", spec.group_size));
  }
  spec.has_zero_points = fields.bool_or("zero_point", true);
  // GEMV, GEMV_fast, Marlin, exllama and ipex checkpoints pack the same numbers differently.
  if (auto version = fields.optional_string("version"); version && lower(*version) != "gemm") {
    fields.fail(error_code::unsupported, "version",
                "is '" + *version + "', which is not supported: only the GEMM layout loads");
  }
  // transformers' llm-awq backend is MIT's original packing, not AutoAWQ's.
  if (auto backend = fields.optional_string("backend"); backend && lower(*backend) != "autoawq") {
    fields.fail(error_code::unsupported, "backend",
                "is '" + *backend + "', which is not supported (autoawq)");
  }
  spec.ignored_substrings = string_list(fields, config, "modules_to_not_convert");
  refuse_unknown_keys(fields, config, awq_keys);
}

void read_gptq(json_fields& fields, const boost::json::object& config, quant_spec& spec) {
  spec.weight_strategy = scale_strategy::group;
  read_bits(fields, spec);
  read_group_size(fields, spec);
  // With one group per row there is no group order to permute: act-order is a no-op.
  spec.desc_act = fields.bool_or("desc_act", false) && spec.group_size != -1;
  spec.has_zero_points = !fields.bool_or("sym", true);
  read_format(fields, spec);
  spec.lm_head_quantized = fields.bool_or("lm_head", false);
  refuse_dynamic(fields, config);
  check_modules_in_block(fields, config);
  check_storage(fields);
  refuse_unknown_keys(fields, config, gptq_keys);
}

}  // namespace pagedserve::quant::spec_parse
