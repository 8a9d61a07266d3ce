#pragma once
// sampling_knobs: the numeric knobs of sampling_params, one row each, under vLLM's
// SamplingParams names. The rows are the one list the rest walks: sampling_params::validate()
// checks each value against its row's range, the OpenAI reader (net/openai/request_fields.cpp)
// reads each from the request body (falling back on the model's generation_config.json where
// the row names a default), and the CAF inspector (actors/engine_messages.h) carries them. So a
// new numeric knob is written in three places: its member in sampling_params, its row here,
// and its device row (runtime/worker/device_sampling.cpp) where the GPU sampler needs it.

#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

#include "api/generation_defaults.h"
#include "api/sampling_params.h"

namespace pagedserve {

// [min, max], or (min, max] when min_open; a value must also be finite.
struct knob_range {
  double min;
  double max;
  bool min_open = false;

  [[nodiscard]] constexpr bool contains(double x) const {
    return (min_open ? x > min : x >= min) && x <= max;
  }
};

template <class T>
struct sampling_knob {
  using value_type = T;
  std::string_view name;  // the field's name in vLLM's SamplingParams and the OpenAI body
  T sampling_params::*member;
  knob_range range;       // what the engine accepts
  std::string_view rule;  // the range in words, for validate()'s message
  // The most an OpenAI request may ask for, where the API is stricter than the engine
  // (OpenAI caps temperature at 2).
  double api_max;
  // The model's generation_config.json default, where vLLM applies one; nullptr: none.
  std::optional<T> generation_defaults::*model_default = nullptr;
};

inline constexpr double k_no_limit = std::numeric_limits<double>::max();
inline constexpr double k_int32_limit = std::numeric_limits<std::int32_t>::max();
inline constexpr double k_uint32_limit = std::numeric_limits<std::uint32_t>::max();

// In the order the OpenAI reader reads them (the first bad field is the one reported).
inline constexpr std::tuple k_sampling_knobs{
    sampling_knob<float>{"temperature",
                         &sampling_params::temperature,
                         {0.0, k_no_limit},
                         "a finite number >= 0",
                         2.0,
                         &generation_defaults::temperature},
    sampling_knob<float>{"top_p",
                         &sampling_params::top_p,
                         {0.0, 1.0, true},
                         "in (0, 1]",
                         1.0,
                         &generation_defaults::top_p},
    sampling_knob<std::int32_t>{"top_k",
                                &sampling_params::top_k,
                                {-1.0, k_int32_limit},
                                "-1 or 0 (disabled) or at least 1",
                                k_int32_limit,
                                &generation_defaults::top_k},
    sampling_knob<float>{"min_p",
                         &sampling_params::min_p,
                         {0.0, 1.0},
                         "in [0, 1]",
                         1.0,
                         &generation_defaults::min_p},
    sampling_knob<float>{
        "presence_penalty", &sampling_params::presence_penalty, {-2.0, 2.0}, "in [-2, 2]", 2.0},
    sampling_knob<float>{
        "frequency_penalty", &sampling_params::frequency_penalty, {-2.0, 2.0}, "in [-2, 2]", 2.0},
    sampling_knob<float>{"repetition_penalty",
                         &sampling_params::repetition_penalty,
                         {0.0, k_no_limit, true},
                         "a finite number > 0",
                         1e9,
                         &generation_defaults::repetition_penalty},
    sampling_knob<std::uint32_t>{"min_tokens",
                                 &sampling_params::min_tokens,
                                 {0.0, k_uint32_limit},
                                 "in [0, 4294967295]",
                                 2147483648.0},
};

inline constexpr std::size_t k_num_sampling_knobs = std::tuple_size_v<decltype(k_sampling_knobs)>;

// Calls fn(knob) for each row, in order.
template <class Fn>
constexpr void for_each_sampling_knob(Fn&& fn) {
  std::apply([&](const auto&... knob) { (fn(knob), ...); }, k_sampling_knobs);
}

// The knobs' values in row order; a double holds each exactly (float, int32, uint32).
[[nodiscard]] std::vector<double> sampling_knob_values(const sampling_params& params);
// Sets the knobs from sampling_knob_values' output; false (params unchanged) when the count
// is not the rows' or a value does not fit its member's type.
[[nodiscard]] bool set_sampling_knob_values(sampling_params& params,
                                            const std::vector<double>& values);

}  // namespace pagedserve
