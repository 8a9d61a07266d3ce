#pragma once
// The fields /v1/completions and /v1/chat/completions share, and the context-length check
// both apply once the prompt is tokenized. docs/openai-api.md lists every field.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "net/openai/api_request.h"
#include "net/openai/body_reader.h"

namespace pagedserve::net {

// Caps on what a request may ask for (beyond OpenAI's own ranges).
inline constexpr std::size_t k_max_stop_strings = 16;
inline constexpr std::size_t k_max_stop_string_bytes = 1024;  // held back while streaming
inline constexpr std::size_t k_max_stop_token_ids = 256;
inline constexpr std::size_t k_max_prompts = 1024;  // prompts in one /v1/completions body

// Reads model, n, best_of, stream, stream_options, user and the sampling fields (every
// numeric knob of api/sampling_knobs.h, seed, stop, stop_token_ids, ignore_eos,
// skip_special_tokens, priority, and processing_fields.h's logit_bias and token lists)
// into `out` and `base`, the generation_request every prompt of the request starts from.
// Errors go to `reader` (a wrong model is a 404).
void read_common_fields(body_reader& reader, const model_context& model, api_request& out,
                        generation_request& base);

// prompt_logprobs (part of read_common_fields): into out.prompt_logprobs and the sampling.
void read_prompt_logprobs(body_reader& reader, api_request& out, generation_request& base);

// The completion budget of a prompt of `prompt_len` tokens: `requested`, or the rest of the
// context when absent. A prompt that fills the context, or a budget that does not fit
// beside it, is a 400 with code context_length_exceeded. `prompt_word` is "prompt" or
// "messages" (the message and the param of a prompt too long); `budget_param` the field
// that asked for the budget.
[[nodiscard]] std::variant<std::uint32_t, api_error> resolve_max_tokens(
    std::size_t prompt_len, std::optional<std::uint32_t> requested, const model_context& model,
    std::string_view prompt_word, std::string_view budget_param);

// `model` as the body gives it (absent: nothing). A name other than the served model's is
// a 404, as OpenAI and vLLM answer: "The model `x` does not exist." (model_not_found).
std::optional<std::string> read_model_name(body_reader& reader, const model_context& model);
[[nodiscard]] api_error model_not_found(const std::string& name);

// Keeps the last request.truncate_prompt_tokens ids of `ids` (nothing when unset); returns
// whether any were dropped.
bool truncate_prompt(const api_request& request, std::vector<token_id>& ids);

// Every prompt token id must be in [0, vocab_size).
[[nodiscard]] std::optional<api_error> check_token_ids(const std::vector<token_id>& ids,
                                                       const model_context& model,
                                                       const std::string& param);

}  // namespace pagedserve::net
