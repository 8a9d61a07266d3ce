// parse_embedding_request: /v1/embeddings. `input` takes /v1/completions' four prompt forms
// (a string, token ids, strings, token-id arrays), so the body is read as the completions
// body {prompt: input, max_tokens: 1} and each prompt becomes an embedding request:
// sampling.pooling with the served model's pooling (model_context::pooling), `dimensions`
// (a Matryoshka cut: only for models that declare one, and one of their sizes when they list
// them) and vLLM's `normalize` (default true). encoding_format float | base64. vLLM's
// add_special_tokens (default true), truncate_prompt_tokens and priority pass through; `user`
// is accepted and unused. Errors name `input` where the completions parser says `prompt`.

#include <algorithm>
#include <array>
#include <string>
#include <string_view>
#include <utility>

#include "net/openai/api_request.h"
#include "net/openai/body_reader.h"

namespace pagedserve::net {
namespace {

constexpr std::array<std::string_view, 4> k_passed_through = {"model", "add_special_tokens",
                                                              "truncate_prompt_tokens", "priority"};

std::optional<api_error> check_dimensions(std::int64_t dims, const model_context& model) {
  const std::vector<std::uint32_t>& sizes = model.matryoshka_dimensions;
  if (!model.is_matryoshka) {
    return bad_request(
        "This model does not support 'dimensions' (it declares no Matryoshka "
        "representation: is_matryoshka or matryoshka_dimensions in config.json).",
        "dimensions");
  }
  if (!sizes.empty() && std::find(sizes.begin(), sizes.end(), dims) == sizes.end()) {
    std::string listed;
    for (const std::uint32_t s : sizes) listed += (listed.empty() ? "" : ", ") + std::to_string(s);
    return bad_request("'dimensions' must be one of the model's Matryoshka sizes: " + listed + ".",
                       "dimensions");
  }
  if (dims > model.hidden_size) {
    return bad_request("'dimensions' must be at most the model's hidden size, " +
                           std::to_string(model.hidden_size) + ".",
                       "dimensions");
  }
  return std::nullopt;
}

}  // namespace

parse_outcome parse_embedding_request(const boost::json::value& body, const model_context& model) {
  if (!body.is_object()) {
    return bad_request("The request body must be a JSON object, got " +
                       std::string(kind_name(body)) + ".");
  }
  body_reader reader(body.get_object());
  pooling_params pooling{model.pooling, std::nullopt, true};
  const auto format = reader.string("encoding_format");
  if (format && *format != "float" && *format != "base64") {
    reader.fail(bad_request("'encoding_format' must be 'float' or 'base64'.", "encoding_format"));
  }
  if (const auto dims = reader.integer("dimensions", 1, 1 << 20)) {
    if (auto err = check_dimensions(*dims, model)) reader.fail(std::move(*err));
    pooling.dimensions = static_cast<std::uint32_t>(*dims);
  }
  pooling.normalize = reader.boolean("normalize").value_or(true);
  (void)reader.string("user");
  const boost::json::value* input = reader.find("input");
  if (reader.failed()) return reader.error();
  if (input == nullptr) return bad_request("'input' is required.", "input");

  boost::json::object completion{{"prompt", *input}, {"max_tokens", 1}};
  for (const std::string_view key : k_passed_through) {
    if (const boost::json::value* v = reader.find(key)) completion[key] = *v;
  }
  parse_outcome parsed = parse_completion_request(completion, model);
  if (auto* err = std::get_if<api_error>(&parsed)) {
    return renamed_param(renamed_param(std::move(*err), "prompt", "input"), "max_tokens", "input");
  }
  api_request& out = std::get<api_request>(parsed);
  out.kind = api_kind::embedding;
  out.embedding_base64 = format == "base64";
  for (api_prompt& prompt : out.prompts) {
    prompt.request.sampling.pooling = pooling;
    prompt.request.sampling.max_tokens = 1;
  }
  return parsed;
}

}  // namespace pagedserve::net
