#include "net/openai/processing_fields.h"

#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "net/openai/structured_output_fields.h"
#include "net/openai/token_list_fields.h"

namespace pagedserve::net {
namespace {

// OpenAI's logit_bias keys are token ids written as decimal strings ("50256").
std::optional<token_id> token_key(std::string_view key, std::uint32_t vocab_size) {
  std::int64_t id = -1;
  const auto [end, ec] = std::from_chars(key.data(), key.data() + key.size(), id);
  if (ec != std::errc() || end != key.data() + key.size() || key.empty()) return std::nullopt;
  if (id < 0 || id >= std::int64_t{vocab_size}) return std::nullopt;
  return static_cast<token_id>(id);
}

void read_logit_bias(body_reader& reader, const model_context& model, sampling_params& s) {
  const boost::json::object* bias = reader.object("logit_bias");
  if (bias == nullptr) return;
  for (const auto& [key, value] : *bias) {
    const std::optional<token_id> token = token_key(key, model.vocab_size);
    if (!token) {
      reader.fail(bad_request("'logit_bias' keys must be token ids in [0, " +
                                  std::to_string(model.vocab_size) + "), got '" + std::string(key) +
                                  "'.",
                              "logit_bias"));
      return;
    }
    if (!value.is_number() || value.to_number<double>() < -k_max_logit_bias ||
        value.to_number<double>() > k_max_logit_bias) {
      reader.fail(bad_request(
          "'logit_bias' values must be numbers in [-100, 100] (token " + std::string(key) + ").",
          "logit_bias"));
      return;
    }
    s.logit_bias.emplace_back(*token, static_cast<float>(value.to_number<double>()));
  }
  // Two spellings of one id ("7" and "07") are one key too many.
  if (status ok = s.validate_processing(); !ok) {
    reader.fail(bad_request(ok.err().message, "logit_bias"));
  }
}

}  // namespace

void read_processing_fields(body_reader& reader, const model_context& model, sampling_params& s) {
  read_logit_bias(reader, model, s);
  read_token_list_fields(reader, model, s);
  read_structured_outputs(reader, s);
}

std::optional<api_error> check_min_tokens(const generation_request& request) {
  if (request.sampling.min_tokens <= request.sampling.max_tokens) return std::nullopt;
  return bad_request("'min_tokens' (" + std::to_string(request.sampling.min_tokens) +
                         ") must be at most the completion's max_tokens (" +
                         std::to_string(request.sampling.max_tokens) + ").",
                     "min_tokens");
}

}  // namespace pagedserve::net
