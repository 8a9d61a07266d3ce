#pragma once
// progress_line: the one-line progress bar of a training run on stderr, redrawn in place:
// step, a bar, tokens/s, the loss (smoothed), the learning rate and the time left.

#include <chrono>
#include <cstdint>
#include <string>

namespace pagedserve::train {

class progress_line {
 public:
  progress_line(std::int64_t first_step, std::int64_t total_steps, std::int64_t tokens_per_step);

  void update(std::int64_t step, double loss, double lr);
  void note(const std::string& text);  // a line of its own above the bar
  void finish();

  // "1h02m", "3m07s", "12s".
  [[nodiscard]] static std::string duration_text(double seconds);

 private:
  std::int64_t first_step_;
  std::int64_t total_steps_;
  std::int64_t tokens_per_step_;
  std::chrono::steady_clock::time_point start_;
  double smoothed_loss_ = -1.0;
  std::string last_line_;
};

}  // namespace pagedserve::train
