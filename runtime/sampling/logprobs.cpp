#include "runtime/sampling/logprobs.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "runtime/sampling/fast_exp.h"
#include "runtime/sampling/truncation.h"

namespace pagedserve {
namespace {

constexpr float k_neg_inf = -std::numeric_limits<float>::infinity();
constexpr float k_pos_inf = std::numeric_limits<float>::infinity();

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "pagedserve: compute_logprobs: %s\n", what);
  std::abort();
}

// log_softmax as a function of one logit, given the whole vector's max and log-sum-exp.
// Terms exp(l - max) are fp32 (fast_exp.h: within 4e-7 relative), their sum and the log double.
class log_softmax {
 public:
  explicit log_softmax(std::span<const float> logits) : max_(sampling_detail::max_logit(logits)) {
    if (max_ == k_neg_inf) return;
    const double sum =
        max_ == k_pos_inf ? static_cast<double>(std::count(logits.begin(), logits.end(), k_pos_inf))
                          : sampling_detail::sum_exp_shifted(logits, max_);
    log_sum_ = std::log(sum);
  }

  [[nodiscard]] float operator()(float logit) const {
    if (!(logit > k_neg_inf) || max_ == k_neg_inf) return k_neg_inf;  // NaN, -inf, nothing
    if (max_ == k_pos_inf) return logit == k_pos_inf ? static_cast<float>(-log_sum_) : k_neg_inf;
    return static_cast<float>(static_cast<double>(logit) - max_ - log_sum_);
  }

 private:
  float max_;
  double log_sum_ = 0.0;  // log(sum exp(l - max)); with +inf logits, log(number of them)
};

// The num_top most likely token ids, most likely first, ties by lower id. Tokens whose
// logit is NaN or -inf rank last, in id order.
[[nodiscard]] std::vector<token_id> top_tokens(std::span<const float> logits, std::size_t num) {
  std::vector<sampling_detail::candidate> cands;
  sampling_detail::select_top_k(logits, num, cands);
  std::sort(cands.begin(), cands.end(), sampling_detail::more_likely);
  std::vector<token_id> ids;
  ids.reserve(num);
  for (const auto& c : cands) ids.push_back(c.id);
  for (std::size_t i = 0; i < logits.size() && ids.size() < num; ++i) {
    if (!(logits[i] > k_neg_inf)) ids.push_back(static_cast<token_id>(i));
  }
  return ids;
}

}  // namespace

logprobs_result compute_logprobs(std::span<const float> logits, token_id chosen,
                                 std::int32_t num_top) {
  if (logits.empty()) fail("empty logits");
  if (chosen < 0 || static_cast<std::size_t>(chosen) >= logits.size()) fail("chosen out of range");
  if (num_top < 0) fail("negative num_top");

  const log_softmax lsm(logits);
  const float chosen_logit = logits[static_cast<std::size_t>(chosen)];
  logprobs_result out;
  out.chosen_logprob = lsm(chosen_logit);
  // NaN ranks as -inf: counted below every finite logit, above nothing.
  const float chosen_key = chosen_logit > k_neg_inf ? chosen_logit : k_neg_inf;
  out.chosen_rank = 1 + static_cast<std::int32_t>(std::count_if(
                            logits.begin(), logits.end(), [&](float l) { return l > chosen_key; }));

  const std::size_t num = std::min(static_cast<std::size_t>(num_top), logits.size());
  for (token_id id : top_tokens(logits, num)) {
    out.top.push_back({id, lsm(logits[static_cast<std::size_t>(id)])});
  }
  return out;
}

}  // namespace pagedserve
