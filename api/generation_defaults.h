#pragma once
// generation_defaults: the sampling a model's generation_config.json recommends, as vLLM's
// default --generation-config auto reads it: temperature, top_p, top_k, min_p and
// repetition_penalty, each only where the file sets it to something other than
// transformers' GenerationConfig default (temperature 1, top_p 1, top_k 50,
// repetition_penalty 1; min_p has none). The OpenAI layer applies them to every request
// that leaves the field out (net/openai); do_sample is ignored, as vLLM ignores it.
// runtime/model/generation_defaults.h reads the file.

#include <cstdint>
#include <optional>
#include <string>

namespace pagedserve {

struct generation_defaults {
  std::optional<float> temperature;
  std::optional<float> top_p;
  std::optional<std::int32_t> top_k;
  std::optional<float> min_p;
  std::optional<float> repetition_penalty;

  [[nodiscard]] bool empty() const {
    return !temperature && !top_p && !top_k && !min_p && !repetition_penalty;
  }
  // "temperature=0.8, top_p=0.95" (empty when there are none).
  [[nodiscard]] std::string describe() const;

  friend bool operator==(const generation_defaults&, const generation_defaults&) = default;
};

}  // namespace pagedserve
