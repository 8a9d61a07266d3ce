// quant_spec: the dispatch on quant_method, the files a HF folder may hold it in, the
// checks the readers share, and the HF fp8 reader. AWQ and GPTQ are read in
// awq_gptq_spec.cpp, compressed-tensors in compressed_tensors_spec.cpp. Where the formats
// are silent, vLLM's readers are the reference.
#include "runtime/quant/quant_spec.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <system_error>

#include "runtime/quant/quant_spec_parse.h"

namespace pagedserve::quant {
namespace spec_parse {

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string describe(const boost::json::value& value) {
  std::string text;
  if (value.is_string()) {
    text.append("'").append(value.get_string()).append("'");
  } else {
    text = boost::json::serialize(value);
  }
  if (text.size() > 80) text = text.substr(0, 77) + "...";
  return text;
}

const boost::json::value* value_of(const boost::json::object& object, std::string_view key) {
  const boost::json::value* value = object.if_contains(key);
  return value == nullptr || value->is_null() ? nullptr : value;
}

namespace {

bool says_nothing(const boost::json::value& value) {
  return value.is_null() || (value.is_bool() && !value.get_bool()) ||
         (value.is_string() && value.get_string().empty()) ||
         (value.is_array() && value.get_array().empty()) ||
         (value.is_object() && value.get_object().empty());
}

}  // namespace

void refuse_unknown_keys(json_fields& fields, const boost::json::object& object,
                         std::span<const std::string_view> known) {
  for (const auto& [key, value] : object) {
    if (std::find(known.begin(), known.end(), key) != known.end() || says_nothing(value)) {
      continue;
    }
    fields.fail(error_code::unsupported, key,
                "is " + describe(value) +
                    ", a setting this server does not know (an unknown key may only be null, "
                    "false or empty)");
  }
}

std::vector<std::string> string_list(json_fields& fields, const boost::json::object& object,
                                     std::string_view key) {
  const boost::json::value* value = value_of(object, key);
  if (value == nullptr) return {};
  std::vector<std::string> out;
  if (value->is_array()) {
    for (const boost::json::value& element : value->get_array()) {
      if (!element.is_string()) break;
      out.emplace_back(element.get_string());
    }
    if (out.size() == value->get_array().size()) return out;
  }
  fields.fail(error_code::invalid_argument, key,
              "must be a list of strings, got " + describe(*value));
  return {};
}

std::optional<std::pair<std::int64_t, std::int64_t>> block_shape(json_fields& fields,
                                                                 const boost::json::object& object,
                                                                 std::string_view key) {
  const boost::json::value* value = value_of(object, key);
  if (value == nullptr) return std::nullopt;
  std::vector<std::int64_t> dims;
  if (value->is_array()) {
    for (const boost::json::value& element : value->get_array()) {
      if (!element.is_int64() || element.get_int64() <= 0 || element.get_int64() > max_group_size) {
        break;
      }
      dims.push_back(element.get_int64());
    }
    if (dims.size() != value->get_array().size()) dims.clear();
  } else if (value->is_string()) {  // "128x128"
    long long rows = 0;
    long long cols = 0;
    char tail = 0;
    if (std::sscanf(value->get_string().c_str(), "%lldx%lld%c", &rows, &cols, &tail) == 2 &&
        rows > 0 && cols > 0 && rows <= max_group_size && cols <= max_group_size) {
      dims = {rows, cols};
    }
  }
  if (dims.size() == 2) return std::pair{dims[0], dims[1]};
  fields.fail(error_code::invalid_argument, key,
              "must be [rows, cols] of positive integers up to " + std::to_string(max_group_size) +
                  ", got " + describe(*value));
  return std::nullopt;
}

constexpr std::string_view fp8_keys[] = {
    "quant_method", "activation_scheme", "weight_block_size",      "fmt",
    "dequantize",   "scale_fmt",         "modules_to_not_convert", "ignored_layers"};

// HF FineGrainedFP8 (block weights, weight_scale_inv) or per-tensor fp8 (vLLM Fp8Config).
void read_fp8(json_fields& fields, const boost::json::object& config, quant_spec& spec) {
  if (auto format = fields.optional_string("fmt"); format && lower(*format) != "e4m3") {
    fields.fail(error_code::unsupported, "fmt",
                "is '" + *format + "', which is not supported (e4m3)");
  }
  const std::string scheme = fields.required_string("activation_scheme");
  if (fields.ok() && scheme != "dynamic" && scheme != "static") {
    fields.fail(error_code::unsupported, "activation_scheme",
                "is '" + scheme + "', which is not supported (dynamic, static)");
  }
  if (auto block = block_shape(fields, config, "weight_block_size")) {
    if (scheme == "static") {
      fields.fail(error_code::unsupported, "activation_scheme",
                  "is 'static', which is not supported with a weight_block_size (block "
                  "checkpoints quantize activations per group at run time: 'dynamic')");
    }
    spec.weight_strategy = scale_strategy::block;
    spec.weight_block_rows = block->first;
    spec.weight_block_cols = block->second;
    spec.activations = activation_scheme::dynamic_per_group;
    spec.activation_group_size = block->second;
  } else {
    spec.weight_strategy = scale_strategy::tensor;
    spec.activations = scheme == "static" ? activation_scheme::static_per_tensor
                                          : activation_scheme::dynamic_per_token;
  }
  if (fields.bool_or("dequantize", false)) {
    fields.fail(error_code::unsupported, "dequantize",
                "is true, which is not supported (load the fp8 weights as they are stored)");
  }
  if (const boost::json::value* scale_fmt = value_of(config, "scale_fmt")) {
    fields.fail(error_code::unsupported, "scale_fmt",
                "is " + describe(*scale_fmt) + ", which is not supported (only absent or null)");
  }
  spec.ignored_modules = string_list(fields, config, "modules_to_not_convert");
  for (std::string& name : string_list(fields, config, "ignored_layers")) {
    spec.ignored_modules.push_back(std::move(name));
  }
  refuse_unknown_keys(fields, config, fp8_keys);
}

}  // namespace spec_parse

namespace {

bool is_lm_head(std::string_view module) {
  return module == "lm_head" || module.ends_with(".lm_head");
}

// Python's re.match: anchored at the start of the name only ("re:.*mlp.gate$"). PCRE2
// reads Python's syntax ((?i), lookarounds); a pattern that does not compile was refused
// when the config was read.
bool matches_from_start(const std::string& pattern, std::string_view module) {
  auto compiled = regex::compile(spec_parse::anchored_at_start(pattern));
  if (!compiled) return false;
  bool found = false;
  (*compiled)->for_each_match(module, [&](std::size_t, std::size_t) { found = true; });
  return found;
}

template <class T>
result<std::optional<T>> as_optional(result<T> value) {
  if (!value) return value.err();
  return std::optional<T>(std::move(*value));
}

// Legacy files written before quant_method existed (AutoAWQ's quant_config.json, early
// AutoGPTQ quantize_config.json): the method is told by keys only one of them writes. A
// file with neither or both is left alone and refused for its missing quant_method.
boost::json::object with_legacy_method(boost::json::object object) {
  if (object.contains("quant_method")) return object;
  const auto has_any = [&](std::initializer_list<std::string_view> keys) {
    return std::any_of(keys.begin(), keys.end(),
                       [&](std::string_view key) { return object.contains(key); });
  };
  const bool awq = has_any({"w_bit", "q_group_size", "zero_point", "version"});
  const bool gptq = has_any({"desc_act", "sym", "damp_percent", "static_groups"});
  if (awq != gptq) object["quant_method"] = awq ? "awq" : "gptq";
  return object;
}

}  // namespace

bool quant_spec::quantizes(std::string_view module) const {
  if (method == quant_method::none) return false;
  if (module.find("embed_tokens") != std::string_view::npos) return false;
  // GPTQ says so with lm_head: true. compressed-tensors applies its "Linear" target to the
  // lm_head unless `ignore` names it (llm-compressor writes it there by default); the other
  // methods never quantize it (vLLM's ParallelLMHead takes no quant method but these two).
  if (is_lm_head(module) && method != quant_method::compressed_tensors) return lm_head_quantized;
  if (std::find(ignored_modules.begin(), ignored_modules.end(), module) != ignored_modules.end()) {
    return false;
  }
  for (const std::string& pattern : ignored_patterns) {
    if (matches_from_start(pattern, module)) return false;
  }
  for (const std::string& part : ignored_substrings) {
    if (module.find(part) != std::string_view::npos) return false;
  }
  return true;
}

std::string_view to_string(quant_method method) {
  switch (method) {
    case quant_method::none:
      return "none";
    case quant_method::awq:
      return "awq";
    case quant_method::gptq:
      return "gptq";
    case quant_method::fp8:
      return "fp8";
    case quant_method::compressed_tensors:
      return "compressed-tensors";
  }
  return "unknown";
}

result<quant_spec> parse_quant_spec(const boost::json::object& config, std::string_view source) {
  spec_parse::json_fields fields(config, std::string(source));
  quant_spec spec;
  spec.source = std::string(source);
  const std::string name = fields.required_string("quant_method");
  if (!fields.ok()) return fields.first_error();
  const std::string method = spec_parse::lower(name);
  if (method == "awq") {
    spec.method = quant_method::awq;
    spec_parse::read_awq(fields, config, spec);
  } else if (method == "gptq") {
    spec.method = quant_method::gptq;
    spec_parse::read_gptq(fields, config, spec);
  } else if (method == "fp8") {
    spec.method = quant_method::fp8;
    spec_parse::read_fp8(fields, config, spec);
  } else if (method == "compressed-tensors") {
    spec.method = quant_method::compressed_tensors;
    spec_parse::read_compressed_tensors(fields, config, spec);
  } else {
    fields.fail(error_code::unsupported, "quant_method",
                "is '" + name +
                    "', which is not supported (supported: awq, gptq, fp8, compressed-tensors)");
  }
  if (!fields.ok()) return fields.first_error();
  return spec;
}

result<std::optional<quant_spec>> load_quant_spec(const std::filesystem::path& model_dir) {
  const std::filesystem::path config_path = model_dir / "config.json";
  result<boost::json::object> config = detail::read_json_object_file(config_path);
  if (!config) return config.err();
  if (const boost::json::value* quant = spec_parse::value_of(*config, "quantization_config")) {
    if (!quant->is_object()) {
      return make_error(error_code::invalid_argument,
                        config_path.string() +
                            ": key 'quantization_config' must be an object, got " +
                            spec_parse::describe(*quant));
    }
    return as_optional(
        parse_quant_spec(quant->get_object(), config_path.string() + ": quantization_config"));
  }
  // vLLM's fallbacks: GPTQ's quantize_config.json, then AutoAWQ's quant_config.json.
  for (const char* name : {"quantize_config.json", "quant_config.json"}) {
    const std::filesystem::path path = model_dir / name;
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) continue;
    result<boost::json::object> legacy = detail::read_json_object_file(path);
    if (!legacy) return legacy.err();
    return as_optional(parse_quant_spec(with_legacy_method(std::move(*legacy)), path.string()));
  }
  return std::optional<quant_spec>{};
}

}  // namespace pagedserve::quant
