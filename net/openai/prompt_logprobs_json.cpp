#include "net/openai/prompt_logprobs_json.h"

#include <string>

#include "net/openai/logprobs_json.h"

namespace pagedserve::net {
namespace {

boost::json::object entry(float logprob, std::int32_t rank, token_id id, const tokenizer* tok) {
  return {
      {"logprob", json_logprob(logprob)}, {"rank", rank}, {"decoded_token", token_text(tok, id)}};
}

}  // namespace

boost::json::array prompt_logprobs_json(std::span<const token_id> prompt,
                                        std::span<const chunk_logprob> logprobs,
                                        const tokenizer* tok) {
  boost::json::array out;
  if (prompt.empty()) return out;
  out.reserve(prompt.size());
  out.emplace_back(nullptr);
  for (const chunk_logprob& lp : logprobs) {
    boost::json::object position;
    position[std::to_string(lp.token)] = entry(lp.logprob, lp.rank, lp.token, tok);
    for (std::size_t k = 0; k < lp.top.size(); ++k) {
      const std::string key = std::to_string(lp.top[k].token);
      if (position.contains(key)) continue;
      position[key] =
          entry(lp.top[k].logprob, static_cast<std::int32_t>(k + 1), lp.top[k].token, tok);
    }
    out.emplace_back(std::move(position));
  }
  return out;
}

}  // namespace pagedserve::net
