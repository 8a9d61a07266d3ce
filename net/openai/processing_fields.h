#pragma once
// The request fields that change the logits before sampling (runtime/sampling/
// logits_processing.h) and are not numeric knobs (those, the penalties and min_tokens among
// them, are read with the others from api/sampling_knobs.h): logit_bias, the token lists
// and structured outputs. docs/openai-api.md lists them.

#include <optional>

#include "api/sampling_params.h"
#include "net/openai/api_request.h"
#include "net/openai/body_reader.h"

namespace pagedserve::net {

// Reads the fields into `s`; a value out of range, or a logit_bias key that is not a token id
// of the model's vocabulary, is a 400 naming the field.
void read_processing_fields(body_reader& reader, const model_context& model, sampling_params& s);

// min_tokens above the completion's budget (max_tokens, or the context it leaves) is a 400
// naming min_tokens, as vLLM answers.
[[nodiscard]] std::optional<api_error> check_min_tokens(const generation_request& request);

}  // namespace pagedserve::net
