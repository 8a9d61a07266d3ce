// The one request check (runtime/engine/request_check.h), without actors: each limit of
// request_limits rejects with its error code and a message naming the value, and a request
// inside every limit passes. The limits here are written out, not taken from the code.

#include "runtime/engine/request_check.h"

#include <gtest/gtest.h>

#include <string>

#include "runtime/tokenizer/demo_tokenizer.h"

namespace pagedserve {
namespace {

request_limits limits_of_a_small_engine() {
  request_limits limits;
  limits.vocab_size = 100;
  limits.max_model_len = 64;
  limits.kv_capacity_tokens = 48;  // a pool smaller than max_model_len
  limits.max_n = 4;
  return limits;
}

generation_request request_of(std::size_t num_prompt, std::uint32_t max_tokens) {
  generation_request r;
  r.prompt_token_ids.assign(num_prompt, 7);
  r.sampling.max_tokens = max_tokens;
  return r;
}

void expect_rejected(const request_limits& limits, const generation_request& r, error_code code,
                     const std::string& says) {
  const status s = check_request(limits, r);
  ASSERT_FALSE(s.ok()) << "accepted; expected: " << says;
  EXPECT_EQ(s.err().code, code) << s.err().message;
  EXPECT_NE(s.err().message.find(says), std::string::npos) << s.err().message;
}

TEST(request_check, a_request_inside_every_limit_passes) {
  EXPECT_TRUE(check_request(limits_of_a_small_engine(), request_of(8, 40)).ok());
}

TEST(request_check, malformed_requests_are_invalid_arguments) {
  const request_limits limits = limits_of_a_small_engine();
  expect_rejected(limits, request_of(0, 4), error_code::invalid_argument, "the prompt is empty");
  generation_request outside = request_of(3, 4);
  outside.prompt_token_ids[1] = 100;
  expect_rejected(limits, outside, error_code::invalid_argument,
                  "prompt token id 100 is outside the vocabulary [0, 100)");
  expect_rejected(limits, request_of(3, 0), error_code::invalid_argument,
                  "max_tokens must be at least 1");
  generation_request many = request_of(3, 4);
  many.sampling.n = 5;
  expect_rejected(limits, many, error_code::invalid_argument, "n must be in [1, 4], got 5");
  generation_request hot = request_of(3, 4);
  hot.sampling.temperature = -1.0F;
  expect_rejected(limits, hot, error_code::invalid_argument, "temperature");
  generation_request stops = request_of(3, 4);
  stops.sampling.stop = {"x"};
  expect_rejected(limits, stops, error_code::invalid_argument, "stop strings need a tokenizer");
}

TEST(request_check, what_could_never_run_exceeds_capacity) {
  const request_limits limits = limits_of_a_small_engine();
  // 60 + 10 = 70 > max_model_len 64.
  expect_rejected(limits, request_of(60, 10), error_code::capacity_exceeded,
                  "exceeds max_model_len 64");
  // 40 + 10 = 50 <= 64, but > the 48 tokens the whole pool holds.
  expect_rejected(limits, request_of(40, 10), error_code::capacity_exceeded,
                  "exceeds the whole KV cache (48 tokens)");
  EXPECT_TRUE(check_request(limits, request_of(40, 8)).ok());  // exactly the pool
}

TEST(request_check, text_prompts_need_a_tokenizer_and_become_its_ids) {
  request_limits limits = limits_of_a_small_engine();
  generation_request text;
  text.prompt = "hi";
  text.sampling.max_tokens = 4;
  const status no_tokenizer = prepare_request(limits, text);
  ASSERT_FALSE(no_tokenizer.ok());
  EXPECT_NE(no_tokenizer.err().message.find("no tokenizer"), std::string::npos);

  const auto tok = make_demo_tokenizer();
  limits.tok = tok;
  limits.vocab_size = static_cast<std::uint32_t>(tok->vocab_size());
  ASSERT_TRUE(prepare_request(limits, text).ok());
  EXPECT_EQ(text.prompt_token_ids, tok->encode("hi", true));
  generation_request empty_stop = request_of(3, 4);
  empty_stop.sampling.stop = {""};
  expect_rejected(limits, empty_stop, error_code::invalid_argument, "empty stop string");
}

}  // namespace
}  // namespace pagedserve
