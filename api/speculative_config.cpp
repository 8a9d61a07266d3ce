#include "api/speculative_config.h"

#include <boost/json.hpp>

#include <optional>
#include <string>
#include <utility>

namespace pagedserve {
namespace {

namespace json = boost::json;

error invalid(std::string message) {
  return make_error(error_code::invalid_argument, "speculative_config: " + std::move(message));
}

result<std::uint32_t> read_count(const json::value& value, const char* field, std::uint32_t min,
                                 std::uint32_t max) {
  const std::string range = std::to_string(min) + ".." + std::to_string(max);
  if (!value.is_int64() && !value.is_uint64()) {
    return invalid(std::string(field) + " must be an integer in " + range);
  }
  const auto number = value.to_number<std::int64_t>();
  if (number < min || number > max) {
    return invalid(std::string(field) + " must be in " + range + ", got " + std::to_string(number));
  }
  return static_cast<std::uint32_t>(number);
}

constexpr const char* k_methods = R"("ngram", "suffix" or "draft_model")";

std::optional<speculative_method> parse_method(std::string_view name) {
  for (const auto method :
       {speculative_method::ngram, speculative_method::suffix, speculative_method::draft_model}) {
    if (name == to_string(method)) return method;
  }
  return std::nullopt;
}

status read_field(speculative_config& config, std::string_view key, const json::value& value) {
  if (key == "method") {
    const auto method = value.is_string() ? parse_method(value.as_string()) : std::nullopt;
    if (!method) return status(invalid(std::string("method must be ") + k_methods));
    config.method = *method;
    return status::success();
  }
  if (key == "model") {
    if (!value.is_string() || value.as_string().empty()) {
      return status(invalid("model must be a draft model's folder (a non-empty string)"));
    }
    config.model = std::string(value.as_string());
    return status::success();
  }
  if (key == "adaptive") {
    if (!value.is_bool()) return status(invalid("adaptive must be true or false"));
    config.adaptive = value.as_bool();
    return status::success();
  }
  if (key == "suffix_decoding_min_token_prob") {
    if (!value.is_number() ||
        !(value.to_number<double>() >= 0.0 && value.to_number<double>() <= 1.0)) {
      return status(invalid("suffix_decoding_min_token_prob must be a number in [0, 1]"));
    }
    config.suffix_decoding_min_token_prob = value.to_number<double>();
    return status::success();
  }
  std::uint32_t* target = nullptr;
  std::uint32_t min = 1;
  if (key == "num_speculative_tokens") {
    target = &config.num_speculative_tokens;
  } else if (key == "prompt_lookup_min") {
    target = &config.prompt_lookup_min;
  } else if (key == "prompt_lookup_max") {
    target = &config.prompt_lookup_max;
  } else if (key == "suffix_decoding_max_tree_depth") {
    target = &config.suffix_decoding_max_tree_depth;
  } else if (key == "suffix_decoding_max_cached_requests") {
    target = &config.suffix_decoding_max_cached_requests;
  } else {
    return status(invalid("unknown field '" + std::string(key) +
                          "' (known: method, model, num_speculative_tokens, adaptive, "
                          "prompt_lookup_min, prompt_lookup_max, suffix_decoding_max_tree_depth, "
                          "suffix_decoding_max_cached_requests, suffix_decoding_min_token_prob)"));
  }
  std::uint32_t max = 1024;
  if (target == &config.num_speculative_tokens) max = k_max_speculative_tokens;
  if (target == &config.suffix_decoding_max_cached_requests) max = 100000;
  auto count = read_count(value, std::string(key).c_str(), min, max);
  if (!count) return status(count.err());
  *target = *count;
  return status::success();
}

// vLLM's defaults: neither bound given, both 5; one given, the other equals it.
void fill_lookup_defaults(speculative_config& config) {
  if (config.prompt_lookup_min == 0 && config.prompt_lookup_max == 0) {
    config.prompt_lookup_min = config.prompt_lookup_max = 5;
  } else if (config.prompt_lookup_min == 0) {
    config.prompt_lookup_min = config.prompt_lookup_max;
  } else if (config.prompt_lookup_max == 0) {
    config.prompt_lookup_max = config.prompt_lookup_min;
  }
}

}  // namespace

std::string_view to_string(speculative_method method) {
  switch (method) {
    case speculative_method::none:
      return "none";
    case speculative_method::ngram:
      return "ngram";
    case speculative_method::suffix:
      return "suffix";
    case speculative_method::draft_model:
      return "draft_model";
  }
  return "unknown";
}

result<speculative_config> parse_speculative_config(std::string_view text) {
  speculative_config config;
  if (text.empty()) return config;
  boost::system::error_code ec;
  const json::value root = json::parse(text, ec);
  if (ec) return invalid("not JSON (" + ec.message() + "): " + std::string(text));
  if (!root.is_object()) return invalid("must be a JSON object, got " + std::string(text));
  for (const auto& [key, value] : root.as_object()) {
    if (status s = read_field(config, key, value); !s) return s.err();
  }
  if (!config.enabled()) return invalid(std::string("method is required (") + k_methods + ")");
  if ((config.method == speculative_method::draft_model) != !config.model.empty()) {
    return invalid(config.model.empty() ? "draft_model needs model (the draft's folder)"
                                        : "model is for method draft_model only");
  }
  if (config.method == speculative_method::suffix && config.num_speculative_tokens == 0) {
    config.num_speculative_tokens = k_max_speculative_tokens;
  }
  if (config.num_speculative_tokens == 0) {
    return invalid("num_speculative_tokens is required (1.." +
                   std::to_string(k_max_speculative_tokens) + ")");
  }
  config = with_defaults(config);
  if (config.prompt_lookup_min > config.prompt_lookup_max) {
    return invalid("prompt_lookup_min (" + std::to_string(config.prompt_lookup_min) +
                   ") exceeds prompt_lookup_max (" + std::to_string(config.prompt_lookup_max) +
                   ")");
  }
  return config;
}

speculative_config with_defaults(speculative_config config) {
  if (config.method == speculative_method::ngram) fill_lookup_defaults(config);
  return config;
}

std::string format_speculative_config(const speculative_config& config) {
  if (!config.enabled()) return "";
  json::object out;
  out["method"] = to_string(config.method);
  out["num_speculative_tokens"] = config.num_speculative_tokens;
  if (!config.adaptive) out["adaptive"] = false;
  if (config.method == speculative_method::ngram) {
    // 0 (a config made in code that left them out): parsing back fills vLLM's defaults.
    if (config.prompt_lookup_min > 0) out["prompt_lookup_min"] = config.prompt_lookup_min;
    if (config.prompt_lookup_max > 0) out["prompt_lookup_max"] = config.prompt_lookup_max;
  } else if (config.method == speculative_method::draft_model) {
    out["model"] = config.model;
  } else {
    out["suffix_decoding_max_tree_depth"] = config.suffix_decoding_max_tree_depth;
    out["suffix_decoding_max_cached_requests"] = config.suffix_decoding_max_cached_requests;
    out["suffix_decoding_min_token_prob"] = config.suffix_decoding_min_token_prob;
  }
  return json::serialize(out);
}

}  // namespace pagedserve
