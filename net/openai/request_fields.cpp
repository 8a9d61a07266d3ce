#include "net/openai/request_fields.h"

#include "net/openai/processing_fields.h"

#include "api/sampling_knobs.h"

#include <algorithm>
#include <limits>
#include <string>
#include <type_traits>

namespace pagedserve::net {
namespace {

constexpr auto k_int32_min = std::numeric_limits<std::int32_t>::min();
constexpr auto k_int32_max = std::numeric_limits<std::int32_t>::max();
constexpr auto k_int64_min = std::numeric_limits<std::int64_t>::min();
constexpr auto k_int64_max = std::numeric_limits<std::int64_t>::max();

void read_model(body_reader& reader, const model_context& model, api_request& out) {
  out.model = read_model_name(reader, model).value_or(model.served_model_name);
}

void read_n_and_streaming(body_reader& reader, const model_context& model, api_request& out) {
  out.n = static_cast<std::uint32_t>(reader.integer("n", 1, model.max_n).value_or(1));
  if (const auto best_of = reader.integer("best_of", 1, k_int64_max);
      best_of && *best_of != out.n) {
    reader.fail(unsupported("best_of", "only best_of equal to n is accepted"));
  }
  out.stream = reader.boolean("stream").value_or(false);
  const boost::json::object* options = reader.object("stream_options");
  if (options == nullptr) return;
  if (!out.stream) {
    reader.fail(
        bad_request("'stream_options' is only allowed when 'stream' is true.", "stream_options"));
    return;
  }
  body_reader nested(*options);
  out.include_usage = nested.boolean("include_usage").value_or(false);
  out.continuous_usage_stats = nested.boolean("continuous_usage_stats").value_or(false);
  if (nested.failed()) {
    api_error err = nested.error();
    err.param = "stream_options." + err.param.value_or("");
    reader.fail(std::move(err));
  }
}

// A value in a range open at 0 as the member's float: one below float's range (top_p:
// 1e-320) would round to 0, which means something else; it becomes the smallest normal
// float, which keeps the same tokens (only the most likely ones).
template <class T>
T knob_value(double x, const knob_range& range) {
  if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(x);
  } else {
    const T rounded = static_cast<T>(x);
    return range.min_open && range.min == 0.0 ? std::max(rounded, std::numeric_limits<T>::min())
                                              : rounded;
  }
}

// Each knob (api/sampling_knobs.h) in its row's range, capped at the API's maximum. A field
// left out takes the model's default (generation_config.json) where the row has one, else
// sampling_params' own.
void read_sampling_knobs(body_reader& reader, const generation_defaults& d, sampling_params& s) {
  for_each_sampling_knob([&](const auto& knob) {
    using T = typename std::decay_t<decltype(knob)>::value_type;
    std::optional<double> x;
    if constexpr (std::is_integral_v<T>) {
      const auto i = reader.integer(knob.name, static_cast<std::int64_t>(knob.range.min),
                                    static_cast<std::int64_t>(knob.api_max));
      if (i) x = static_cast<double>(*i);
    } else {
      x = reader.number(knob.name, knob.range.min, knob.api_max, knob.range.min_open);
    }
    if (x) {
      s.*knob.member = knob_value<T>(*x, knob.range);
    } else if (knob.model_default != nullptr && d.*knob.model_default) {
      s.*knob.member = *(d.*knob.model_default);
    }
  });
}

void read_sampling(body_reader& reader, const generation_defaults& d, sampling_params& s) {
  read_sampling_knobs(reader, d, s);
  // vLLM takes any int64 seed; the sampler's seed is its two's-complement bit pattern.
  if (const auto seed = reader.integer("seed", k_int64_min, k_int64_max)) {
    s.seed = static_cast<std::uint64_t>(*seed);
  }
}

void read_stop_strings(body_reader& reader, const model_context& model, generation_request& base) {
  const boost::json::value* stop = reader.find("stop");
  if (stop == nullptr || reader.failed()) return;
  if (stop->is_string()) {
    base.sampling.stop.emplace_back(stop->get_string());
  } else if (stop->is_array()) {
    for (const boost::json::value& item : stop->get_array()) {
      if (!item.is_string()) {
        reader.fail(invalid_type("stop", "a string or an array of strings", item));
        return;
      }
      base.sampling.stop.emplace_back(item.get_string());
    }
  } else {
    reader.fail(invalid_type("stop", "a string or an array of strings", *stop));
    return;
  }
  if (base.sampling.stop.size() > k_max_stop_strings) {
    reader.fail(bad_request("'stop' may hold at most " + std::to_string(k_max_stop_strings) +
                                " strings, got " + std::to_string(base.sampling.stop.size()) + ".",
                            "stop"));
  }
  for (const std::string& s : base.sampling.stop) {
    if (s.empty() || s.size() > k_max_stop_string_bytes) {
      reader.fail(bad_request("Each 'stop' string must have 1 to " +
                                  std::to_string(k_max_stop_string_bytes) + " bytes.",
                              "stop"));
    }
  }
  if (!base.sampling.stop.empty() && model.tok == nullptr) {
    reader.fail(
        bad_request("'stop' strings need a tokenizer and this model has none; use "
                    "'stop_token_ids'.",
                    "stop"));
  }
}

void read_stop_token_ids(body_reader& reader, const model_context& model,
                         generation_request& base) {
  const boost::json::array* ids = reader.array("stop_token_ids");
  if (ids == nullptr) return;
  if (ids->size() > k_max_stop_token_ids) {
    reader.fail(bad_request(
        "'stop_token_ids' may hold at most " + std::to_string(k_max_stop_token_ids) + " ids.",
        "stop_token_ids"));
    return;
  }
  for (const boost::json::value& item : *ids) {
    const std::optional<std::int64_t> id = integral_value(item);
    if (!id || *id < 0 || *id >= static_cast<std::int64_t>(model.vocab_size)) {
      reader.fail(invalid_value(
          "stop_token_ids", "token ids in [0, " + std::to_string(model.vocab_size) + ")", item));
      return;
    }
    base.sampling.stop_token_ids.push_back(static_cast<token_id>(*id));
  }
}

// -1 means max_model_len (vLLM); more than max_model_len could never fit.
void read_truncation(body_reader& reader, const model_context& model, api_request& out) {
  const std::optional<std::int64_t> k =
      reader.integer("truncate_prompt_tokens", -1, std::int64_t{model.max_model_len});
  if (!k) return;
  out.truncate_prompt_tokens = *k == -1 ? model.max_model_len : static_cast<std::uint32_t>(*k);
  if (*out.truncate_prompt_tokens == 0) {
    reader.fail(bad_request("'truncate_prompt_tokens' must be -1 or at least 1.",
                            "truncate_prompt_tokens"));
  }
}

}  // namespace

bool truncate_prompt(const api_request& request, std::vector<token_id>& ids) {
  if (!request.truncate_prompt_tokens || ids.size() <= *request.truncate_prompt_tokens) {
    return false;
  }
  ids.erase(ids.begin(), ids.end() - *request.truncate_prompt_tokens);
  return true;
}

void read_common_fields(body_reader& reader, const model_context& model, api_request& out,
                        generation_request& base) {
  read_model(reader, model, out);
  read_n_and_streaming(reader, model, out);
  out.user = reader.string("user").value_or("");
  read_sampling(reader, model.sampling_defaults, base.sampling);
  read_stop_strings(reader, model, base);
  read_stop_token_ids(reader, model, base);
  base.sampling.ignore_eos = reader.boolean("ignore_eos").value_or(false);
  base.sampling.skip_special_tokens = reader.boolean("skip_special_tokens").value_or(true);
  // vLLM's detokenizer for tokenizer.json (fast) tokenizers joins consecutive special tokens
  // without spaces either way, as ours does (HF's decode): both values give the same text.
  (void)reader.boolean("spaces_between_special_tokens");
  base.sampling.include_stop_str_in_output =
      reader.boolean("include_stop_str_in_output").value_or(false);
  base.priority =
      static_cast<std::int32_t>(reader.integer("priority", k_int32_min, k_int32_max).value_or(0));
  read_processing_fields(reader, model, base.sampling);
  read_truncation(reader, model, out);
  read_prompt_logprobs(reader, out, base);
  base.sampling.n = out.n;
}

// vLLM's prompt_logprobs N (0..20): the prompt's logprobs with N alternatives per position.
// Not with stream (vLLM refuses it: they would all arrive at once, before any token).
void read_prompt_logprobs(body_reader& reader, api_request& out, generation_request& base) {
  const auto n = reader.integer("prompt_logprobs", 0, k_max_logprobs);
  if (!n) return;
  if (out.stream) {  // vLLM refuses N > 0; 0 asks for nothing a stream could carry
    if (*n > 0) {
      reader.fail(bad_request("'prompt_logprobs' is not available when 'stream' is true.",
                              "prompt_logprobs"));
    }
    return;
  }
  out.prompt_logprobs = static_cast<std::int32_t>(*n);
  base.sampling.prompt_logprobs = out.prompt_logprobs;
}

std::variant<std::uint32_t, api_error> resolve_max_tokens(std::size_t prompt_len,
                                                          std::optional<std::uint32_t> requested,
                                                          const model_context& model,
                                                          std::string_view prompt_word,
                                                          std::string_view budget_param) {
  const std::uint64_t max_len = model.max_model_len;
  const std::string context =
      "This model's maximum context length is " + std::to_string(max_len) + " tokens. ";
  if (prompt_len >= max_len) {
    return bad_request(context + "However, your request has " + std::to_string(prompt_len) +
                           " input tokens, which leaves no room for a completion. Please reduce "
                           "the length of the " +
                           std::string(prompt_word) + ".",
                       std::string(prompt_word), "context_length_exceeded");
  }
  const std::uint64_t remaining = max_len - prompt_len;
  const std::uint64_t budget = requested.value_or(static_cast<std::uint32_t>(remaining));
  if (budget > remaining) {
    return bad_request(context + "However, you requested " + std::to_string(prompt_len + budget) +
                           " tokens (" + std::to_string(prompt_len) + " in the " +
                           std::string(prompt_word) + ", " + std::to_string(budget) +
                           " in the completion). Please reduce the length of the " +
                           std::string(prompt_word) + " or completion.",
                       std::string(budget_param), "context_length_exceeded");
  }
  return static_cast<std::uint32_t>(budget);
}

std::optional<std::string> read_model_name(body_reader& reader, const model_context& model) {
  std::optional<std::string> name = reader.string("model");
  if (name && !model.served_model_name.empty() && *name != model.served_model_name) {
    reader.fail(model_not_found(*name));
  }
  return name;
}

api_error model_not_found(const std::string& name) {
  api_error err = not_found("The model `" + name + "` does not exist.");
  err.param = "model";
  err.code = "model_not_found";
  return err;
}

std::optional<api_error> check_token_ids(const std::vector<token_id>& ids,
                                         const model_context& model, const std::string& param) {
  for (const token_id id : ids) {
    if (id < 0 || static_cast<std::uint32_t>(id) >= model.vocab_size) {
      return bad_request("Token id " + std::to_string(id) + " in '" + param +
                             "' is outside the vocabulary [0, " + std::to_string(model.vocab_size) +
                             ").",
                         param);
    }
  }
  return std::nullopt;
}

}  // namespace pagedserve::net
