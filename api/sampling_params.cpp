#include "api/sampling_params.h"

#include "api/sampling_knobs.h"

#include <cmath>
#include <set>
#include <sstream>
#include <string>

namespace pagedserve {
namespace {

// "<field> must be <rule>, got <value>" as an invalid_argument error.
template <class T>
[[nodiscard]] status invalid(std::string_view field, std::string_view rule, T value) {
  std::ostringstream message;
  message << field << " must be " << rule << ", got " << value;
  return make_error(error_code::invalid_argument, message.str());
}

}  // namespace

bool sampling_params::is_greedy() const { return temperature < k_greedy_temperature_epsilon; }

status sampling_params::validate() const {
  status first_bad = status::success();
  for_each_sampling_knob([&](const auto& knob) {
    const auto x = this->*knob.member;
    if (!first_bad || (std::isfinite(static_cast<double>(x)) && knob.range.contains(x))) return;
    first_bad = invalid(knob.name, knob.rule, x);
  });
  if (!first_bad) return first_bad;
  if (logprobs && (*logprobs < 0 || *logprobs > k_max_logprobs)) {
    static_assert(k_max_logprobs == 20, "update the message below");
    return invalid("logprobs", "in [0, 20]", *logprobs);
  }
  if (prompt_logprobs && (*prompt_logprobs < 0 || *prompt_logprobs > k_max_logprobs)) {
    return invalid("prompt_logprobs", "in [0, 20]", *prompt_logprobs);
  }
  if (pooling) {
    if (n != 1) return invalid("n", "1 for an embedding request", n);
    if (logprobs || prompt_logprobs || structured_outputs) {
      return make_error(error_code::invalid_argument,
                        "an embedding request (pooling) takes no logprobs, prompt_logprobs or "
                        "structured_outputs");
    }
    if (pooling->dimensions && *pooling->dimensions == 0) {
      return invalid("dimensions", ">= 1", *pooling->dimensions);
    }
  }
  return validate_processing();
}

status sampling_params::validate_processing() const {
  for (const std::vector<token_id>& word : bad_words_token_ids) {
    if (word.empty()) return make_error(error_code::invalid_argument, "bad_words: an empty word");
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
