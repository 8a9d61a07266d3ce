#pragma once
// step_cost_curve: how long a step of n batched tokens takes, as the speculation depth needs
// it (speculation_depth.h), learned only from steps that ran: each size bucket (n itself up
// to 16, then buckets three significant bits wide) holds the mean of its first steps, then a
// moving average of what they took (a first step that was an outlier is soon outweighed). Between
// measured buckets the curve is linear; beyond the measured range it follows the prior's shape,
// seconds proportional to 1 + prior_ratio n, from the nearest measured bucket; with nothing
// measured it is that shape in units of an idle step.
//
// Only measured sizes carry weight, so a size never run cannot hold the curve up (a step of
// one shape seen once must not forbid the next). Start-up calibration was tried and dropped:
// decode-shaped steps over short contexts mispredicted the costs of real steps (the extra
// tokens of a 16-sequence step cost far less than on the calibration's short contexts).

#include <cstdint>
#include <map>
#include <span>
#include <utility>

namespace pagedserve::sched {

class step_cost_curve {
 public:
  explicit step_cost_curve(double prior_ratio = 0.02) : prior_ratio_(prior_ratio) {}

  // (tokens, seconds) as if each had been measured (tests).
  void seed(std::span<const std::pair<std::uint32_t, double>> points);
  // A step of `num_tokens` took `seconds`.
  void observe(std::uint32_t num_tokens, double seconds);
  // The predicted time of a step of `num_tokens` (in the prior's units while nothing is
  // measured: only ratios of these matter).
  [[nodiscard]] double seconds(double num_tokens) const;
  [[nodiscard]] bool measured() const { return !buckets_.empty(); }

  // The bucket a step of `num_tokens` falls in (its smallest size).
  [[nodiscard]] static std::uint32_t bucket_of(std::uint32_t num_tokens);

 private:
  [[nodiscard]] double prior(double n) const { return 1.0 + prior_ratio_ * n; }

  double prior_ratio_;
  struct bucket {
    double seconds = 0.0;        // moving average
    std::uint32_t observed = 0;  // observations so far (the first few are averaged evenly)
  };
  std::map<std::uint32_t, bucket> buckets_;
};

}  // namespace pagedserve::sched
