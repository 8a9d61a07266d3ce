#include "net/openai/embedding_builder.h"

#include <bit>
#include <cstring>
#include <utility>

#include <boost/json.hpp>

namespace pagedserve::net {

embedding_builder::embedding_builder(const api_request& request)
    : model_(request.model), base64_(request.embedding_base64), inputs_(request.prompts.size()) {}

void embedding_builder::on_chunk(std::size_t prompt_index, const token_chunk& chunk,
                                 std::vector<std::string>& /*payloads*/) {
  if (prompt_index < inputs_.size() && !chunk.embedding.empty()) {
    inputs_[prompt_index].embedding = chunk.embedding;
  }
}

void embedding_builder::on_final(std::size_t prompt_index, const request_final& final,
                                 std::vector<std::string>& /*payloads*/) {
  if (prompt_index >= inputs_.size() || inputs_[prompt_index].finished) return;
  input_state& input = inputs_[prompt_index];
  input.finished = true;
  input.prompt_tokens = final.usage.prompt_tokens;
  ++num_finished_;
  if (error_message_) return;
  if (final.reason == finish_reason::error) {
    error_message_ = final.error_message;
  } else if (input.embedding.empty()) {  // cancelled, or an engine without pooling
    error_message_ = "input " + std::to_string(prompt_index) + " ended without an embedding (" +
                     std::string(to_string(final.reason)) + ")";
  }
}

std::vector<std::string> embedding_builder::finish() {
  boost::json::array data;
  data.reserve(inputs_.size());
  std::uint64_t prompt_tokens = 0;
  for (std::size_t i = 0; i < inputs_.size(); ++i) {
    input_state& input = inputs_[i];
    prompt_tokens += input.prompt_tokens;
    boost::json::value vector;
    if (base64_) {
      vector = base64_floats(input.embedding);
    } else {
      boost::json::array floats;
      floats.reserve(input.embedding.size());
      for (const float x : input.embedding) floats.emplace_back(static_cast<double>(x));
      vector = std::move(floats);
    }
    data.push_back(boost::json::object{
        {"object", "embedding"}, {"index", i}, {"embedding", std::move(vector)}});
  }
  const boost::json::object body{
      {"object", "list"},
      {"data", std::move(data)},
      {"model", model_},
      {"usage", {{"prompt_tokens", prompt_tokens}, {"total_tokens", prompt_tokens}}}};
  return {boost::json::serialize(body)};
}

std::string base64_floats(const std::vector<float>& values) {
  static constexpr char k_alphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::vector<unsigned char> bytes(values.size() * 4);
  for (std::size_t i = 0; i < values.size(); ++i) {
    const auto bits = std::bit_cast<std::uint32_t>(values[i]);
    for (int b = 0; b < 4; ++b) bytes[i * 4 + b] = static_cast<unsigned char>(bits >> (8 * b));
  }
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    const std::size_t left = bytes.size() - i;
    const std::uint32_t n = (std::uint32_t{bytes[i]} << 16) |
                            (left > 1 ? std::uint32_t{bytes[i + 1]} << 8 : 0) |
                            (left > 2 ? std::uint32_t{bytes[i + 2]} : 0);
    out += k_alphabet[(n >> 18) & 63];
    out += k_alphabet[(n >> 12) & 63];
    out += left > 1 ? k_alphabet[(n >> 6) & 63] : '=';
    out += left > 2 ? k_alphabet[n & 63] : '=';
  }
  return out;
}

}  // namespace pagedserve::net
