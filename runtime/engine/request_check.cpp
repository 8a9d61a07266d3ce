#include "runtime/engine/request_check.h"

#include <algorithm>
#include <exception>
#include <string>
#include <utility>

namespace pagedserve {
namespace {

error invalid(std::string why) { return make_error(error_code::invalid_argument, std::move(why)); }

status check_prompt(const request_limits& limits, const generation_request& request) {
  if (request.prompt_token_ids.empty()) return invalid("the prompt is empty");
  for (const token_id id : request.prompt_token_ids) {
    if (id < 0 || static_cast<std::uint32_t>(id) >= limits.vocab_size) {
      return invalid("prompt token id " + std::to_string(id) + " is outside the vocabulary [0, " +
                     std::to_string(limits.vocab_size) + ")");
    }
  }
  return status::success();
}

status check_token(const request_limits& limits, token_id id, const char* field) {
  if (id < 0 || static_cast<std::uint32_t>(id) >= limits.vocab_size) {
    return invalid(std::string(field) + " token id " + std::to_string(id) +
                   " is outside the vocabulary [0, " + std::to_string(limits.vocab_size) + ")");
  }
  return status::success();
}

// allowed_token_ids and bad_words' ids must be in the vocabulary.
status check_vocabulary_lists(const request_limits& limits, const sampling_params& sampling) {
  for (const token_id id : sampling.allowed_token_ids) {
    if (status ok = check_token(limits, id, "allowed_token_ids"); !ok) return ok;
  }
  for (const std::vector<token_id>& word : sampling.bad_words_token_ids) {
    for (const token_id id : word) {
      if (status ok = check_token(limits, id, "bad_words"); !ok) return ok;
    }
  }
  return status::success();
}

status check_generation(const request_limits& limits, const generation_request& request) {
  if (request.sampling.max_tokens < 1) return invalid("max_tokens must be at least 1");
  if (request.sampling.n < 1 || request.sampling.n > limits.max_n) {
    return invalid("n must be in [1, " + std::to_string(limits.max_n) + "], got " +
                   std::to_string(request.sampling.n));
  }
  if (status ok = request.sampling.validate(); !ok) return invalid(ok.err().message);
  if (request.sampling.min_tokens > request.sampling.max_tokens) {
    return invalid("min_tokens must be at most max_tokens (" +
                   std::to_string(request.sampling.max_tokens) + "), got " +
                   std::to_string(request.sampling.min_tokens));
  }
  for (const auto& [token, bias] : request.sampling.logit_bias) {
    if (static_cast<std::uint32_t>(token) >= limits.vocab_size) {
      return invalid("logit_bias token id " + std::to_string(token) +
                     " is outside the vocabulary [0, " + std::to_string(limits.vocab_size) + ")");
    }
  }
  if (status ok = check_vocabulary_lists(limits, request.sampling); !ok) return ok;
  if (!request.sampling.stop.empty() && !limits.tok) {
    return invalid("stop strings need a tokenizer; this engine has none (use stop_token_ids)");
  }
  for (const std::string& stop : request.sampling.stop) {
    if (stop.empty()) return invalid("empty stop string");
  }
  return status::success();
}

// Whether the request could ever run: its longest sequence within max_model_len and the pool.
status check_capacity(const request_limits& limits, const generation_request& request) {
  const std::uint64_t num_prompt = request.prompt_token_ids.size();
  const std::uint64_t total = num_prompt + std::uint64_t{request.sampling.max_tokens};
  if (total > limits.max_model_len) {
    return make_error(error_code::capacity_exceeded,
                      "prompt (" + std::to_string(num_prompt) + " tokens) + max_tokens (" +
                          std::to_string(request.sampling.max_tokens) + ") exceeds max_model_len " +
                          std::to_string(limits.max_model_len));
  }
  if (total > limits.kv_capacity_tokens) {
    return make_error(error_code::capacity_exceeded,
                      "prompt + max_tokens (" + std::to_string(total) +
                          " tokens) exceeds the whole KV cache (" +
                          std::to_string(limits.kv_capacity_tokens) + " tokens)");
  }
  return status::success();
}

}  // namespace

request_limits request_limits_of(const engine_plan& plan, std::uint32_t vocab_size,
                                 std::shared_ptr<const tokenizer> tok) {
  request_limits limits;
  limits.vocab_size = vocab_size;
  limits.max_model_len = plan.sched.max_model_len;
  limits.kv_capacity_tokens = plan.kv_capacity_tokens();
  limits.max_n = plan.max_n;
  limits.tok = std::move(tok);
  return limits;
}

status tokenize_prompt(const request_limits& limits, generation_request& request) {
  if (!request.prompt_token_ids.empty() || request.prompt.empty()) return status::success();
  if (!limits.tok) return invalid("this engine has no tokenizer: send prompt_token_ids");
  try {
    request.prompt_token_ids = limits.tok->encode(request.prompt, request.add_special_tokens);
  } catch (const std::exception& e) {
    return invalid(std::string("the prompt could not be tokenized: ") + e.what());
  }
  if (request.prompt_token_ids.empty()) return invalid("the prompt has no tokens");
  return status::success();
}

status check_request(const request_limits& limits, const generation_request& request) {
  if (status ok = check_prompt(limits, request); !ok) return ok;
  if (status ok = check_generation(limits, request); !ok) return ok;
  return check_capacity(limits, request);
}

status prepare_request(const request_limits& limits, generation_request& request) {
  if (status ok = tokenize_prompt(limits, request); !ok) return ok;
  // The device's allowed-token mask searches the list: ascending, each id once.
  std::vector<token_id>& allowed = request.sampling.allowed_token_ids;
  std::sort(allowed.begin(), allowed.end());
  allowed.erase(std::unique(allowed.begin(), allowed.end()), allowed.end());
  return check_request(limits, request);
}

}  // namespace pagedserve
