#pragma once
// embedding_builder: a /v1/embeddings call's engine events (one embedding request per input,
// sampling.pooling set) into OpenAI's list:
//   {"object": "list", "data": [{"object": "embedding", "index", "embedding"}], "model",
//    "usage": {"prompt_tokens", "total_tokens"}}
// `embedding` is a list of floats, or with encoding_format "base64" the base64 of the
// vector's little-endian float32 bytes (what the openai SDKs ask for by default and decode).

#include <optional>
#include <string>
#include <vector>

#include "net/openai/api_request.h"
#include "net/openai/event_builder.h"

namespace pagedserve::net {

class embedding_builder final : public event_builder {
 public:
  explicit embedding_builder(const api_request& request);

  void on_chunk(std::size_t prompt_index, const token_chunk& chunk,
                std::vector<std::string>& payloads) override;
  void on_final(std::size_t prompt_index, const request_final& final,
                std::vector<std::string>& payloads) override;
  [[nodiscard]] bool done() const override { return num_finished_ == inputs_.size(); }
  [[nodiscard]] std::vector<std::string> finish() override;
  [[nodiscard]] const std::optional<std::string>& error_message() const override {
    return error_message_;
  }

 private:
  struct input_state {
    std::vector<float> embedding;
    std::uint32_t prompt_tokens = 0;
    bool finished = false;
  };

  std::string model_;
  bool base64_;
  std::vector<input_state> inputs_;
  std::size_t num_finished_ = 0;
  std::optional<std::string> error_message_;
};

// The base64 (RFC 4648, padded) of `values` as little-endian float32 bytes.
[[nodiscard]] std::string base64_floats(const std::vector<float>& values);

}  // namespace pagedserve::net
