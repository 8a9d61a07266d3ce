#include "api/sampling_params.h"

#include <cmath>
#include <set>
#include <sstream>
#include <string>

namespace pagedserve {
namespace {

// "<field> must be <rule>, got <value>" as an invalid_argument error.
template <class T>
[[nodiscard]] status invalid(const char* field, const char* rule, T value) {
  std::ostringstream message;
  message << field << " must be " << rule << ", got " << value;
  return make_error(error_code::invalid_argument, message.str());
}

}  // namespace

bool sampling_params::is_greedy() const { return temperature < k_greedy_temperature_epsilon; }

status sampling_params::validate() const {
  if (!std::isfinite(temperature) || temperature < 0.0f) {
    return invalid("temperature", "a finite number >= 0", temperature);
  }
  if (!std::isfinite(top_p) || top_p <= 0.0f || top_p > 1.0f) {
    return invalid("top_p", "in (0, 1]", top_p);
  }
  if (top_k < -1) {
    return invalid("top_k", "-1 or 0 (disabled) or at least 1", top_k);
  }
  if (!std::isfinite(min_p) || min_p < 0.0f || min_p > 1.0f) {
    return invalid("min_p", "in [0, 1]", min_p);
  }
  if (logprobs && (*logprobs < 0 || *logprobs > k_max_logprobs)) {
    static_assert(k_max_logprobs == 20, "update the message below");
    return invalid("logprobs", "in [0, 20]", *logprobs);
  }
  if (prompt_logprobs && (*prompt_logprobs < 0 || *prompt_logprobs > k_max_logprobs)) {
    return invalid("prompt_logprobs", "in [0, 20]", *prompt_logprobs);
  }
  return validate_processing();
}

status sampling_params::validate_processing() const {
  for (const std::vector<token_id>& word : bad_words_token_ids) {
    if (word.empty()) return make_error(error_code::invalid_argument, "bad_words: an empty word");
  }
  if (!std::isfinite(presence_penalty) || std::fabs(presence_penalty) > 2.0f) {
    return invalid("presence_penalty", "in [-2, 2]", presence_penalty);
  }
  if (!std::isfinite(frequency_penalty) || std::fabs(frequency_penalty) > 2.0f) {
    return invalid("frequency_penalty", "in [-2, 2]", frequency_penalty);
  }
  if (!std::isfinite(repetition_penalty) || repetition_penalty <= 0.0f) {
    return invalid("repetition_penalty", "a finite number > 0", repetition_penalty);
  }
  std::set<token_id> seen;
  for (const auto& [token, bias] : logit_bias) {
    if (token < 0) return invalid("logit_bias", "keyed by token ids >= 0", token);
    if (!seen.insert(token).second) {
      return invalid("logit_bias", "keyed by distinct token ids; repeated", token);
    }
    if (!std::isfinite(bias) || std::fabs(bias) > k_max_logit_bias) {
      return invalid("logit_bias", "values in [-100, 100]", bias);
    }
  }
  return status::success();
}

}  // namespace pagedserve
