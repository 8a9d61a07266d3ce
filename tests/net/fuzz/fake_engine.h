#pragma once
// fake_engine: an engine_client that answers at once, on the caller's thread, the same way
// for the same request: so a fuzzer's input alone decides what the server does. A request
// whose max_tokens is a multiple of 7 is refused (queue full), to reach the refusal paths;
// any other is accepted, and each of its n completions gets one chunk per generated token
// (at most 3, the prompt's first ids echoed back, with logprobs when asked) and a final.
// Cancels are counted, not acted on: every request has already ended when submit returns.

#include <algorithm>
#include <cstdint>
#include <memory>

#include "api/engine_client.h"
#include "runtime/tokenizer/demo_tokenizer.h"

namespace pagedserve::net::fuzzing {

class fake_engine final : public engine_client {
 public:
  fake_engine() {
    info_.name = "fuzz-model";
    info_.max_model_len = 256;
    info_.vocab_size = 512;
    info_.block_size = 16;
    info_.num_blocks = 64;
    info_.max_n = 4;
    info_.tok = make_demo_tokenizer();
    info_.eos_token_ids = {2};
    info_.hidden_size = 8;
  }

  submission submit_async(generation_request request, engine_callback callback,
                          accept_callback accepted) override {
    if (request.sampling.max_tokens % 7 == 0) {
      accepted(make_error(error_code::overloaded, "fake engine: queue full"));
      return submission(counter_);
    }
    const request_id id(next_id_++);
    accepted(id);
    const std::uint32_t num_tokens = std::min<std::uint32_t>(request.sampling.max_tokens, 3);
    if (request.sampling.pooling) {  // an embedding: one chunk with the vector, then its end
      token_chunk c;
      c.request = id;
      c.embedding.assign(info_.hidden_size, 0.25f);
      callback(c);
      request_final final;
      final.request = id;
      final.reason = finish_reason::stop;
      final.usage.prompt_tokens = static_cast<std::uint32_t>(request.prompt_token_ids.size());
      final.finished = true;
      callback(final);
      return submission(counter_);
    }
    for (std::uint32_t index = 0; index < std::max<std::uint32_t>(request.sampling.n, 1); ++index) {
      for (std::uint32_t t = 0; t < num_tokens; ++t) callback(chunk(request, id, index, t));
      request_final final;
      final.request = id;
      final.index = index;
      final.reason =
          num_tokens == request.sampling.max_tokens ? finish_reason::length : finish_reason::stop;
      final.usage.prompt_tokens = static_cast<std::uint32_t>(request.prompt_token_ids.size());
      final.usage.completion_tokens = num_tokens;
      callback(final);
    }
    return submission(counter_);
  }

  void stats_async(stats_callback done) override { done(engine_stats{}); }
  [[nodiscard]] const engine_model_info& model() const override { return info_; }

 private:
  struct cancel_counter final : cancellable {
    void cancel() override { ++num_cancels; }
    std::uint64_t num_cancels = 0;
  };

  static token_chunk chunk(const generation_request& request, request_id id, std::uint32_t index,
                           std::uint32_t t) {
    token_chunk c;
    c.request = id;
    c.index = index;
    const token_id token = request.prompt_token_ids.empty()
                               ? 17
                               : request.prompt_token_ids[t % request.prompt_token_ids.size()];
    c.token_ids = {token};
    c.text = std::string(1, 'x');
    if (request.sampling.logprobs) {
      chunk_logprob lp;
      lp.token = token;
      lp.logprob = -0.5f;
      for (int k = 0; k < *request.sampling.logprobs; ++k) {
        lp.top.push_back(
            token_logprob{static_cast<token_id>(16 + k), -1.0f - static_cast<float>(k)});
      }
      c.logprobs.push_back(std::move(lp));
    }
    return c;
  }

  engine_model_info info_;
  std::uint64_t next_id_ = 1;
  std::shared_ptr<cancel_counter> counter_ = std::make_shared<cancel_counter>();
};

}  // namespace pagedserve::net::fuzzing
