#include "train/model/progress_line.h"

#include <algorithm>
#include <cstdio>

namespace pagedserve::train {

progress_line::progress_line(std::int64_t first_step, std::int64_t total_steps,
                             std::int64_t tokens_per_step)
    : first_step_(first_step),
      total_steps_(total_steps),
      tokens_per_step_(tokens_per_step),
      start_(std::chrono::steady_clock::now()) {}

std::string progress_line::duration_text(double seconds) {
  const auto s = static_cast<std::int64_t>(seconds + 0.5);
  char text[32];
  if (s >= 3600) {
    std::snprintf(text, sizeof text, "%lldh%02lldm", static_cast<long long>(s / 3600),
                  static_cast<long long>(s % 3600 / 60));
  } else if (s >= 60) {
    std::snprintf(text, sizeof text, "%lldm%02llds", static_cast<long long>(s / 60),
                  static_cast<long long>(s % 60));
  } else {
    std::snprintf(text, sizeof text, "%llds", static_cast<long long>(s));
  }
  return text;
}

void progress_line::update(std::int64_t step, double loss, double lr) {
  smoothed_loss_ = smoothed_loss_ < 0.0 ? loss : 0.95 * smoothed_loss_ + 0.05 * loss;
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const std::int64_t done = step + 1 - first_step_;
  const double per_step = elapsed / static_cast<double>(std::max<std::int64_t>(1, done));
  const double left = per_step * static_cast<double>(total_steps_ - step - 1);
  constexpr int width = 24;
  const int filled = static_cast<int>(width * (step + 1) / std::max<std::int64_t>(1, total_steps_));
  const std::string bar = std::string(static_cast<std::size_t>(filled), '#') +
                          std::string(static_cast<std::size_t>(width - filled), '.');
  char line[200];
  std::snprintf(line, sizeof line, "step %lld/%lld [%s] %.0f tok/s  loss %.3f  lr %.2e  ETA %s",
                static_cast<long long>(step + 1), static_cast<long long>(total_steps_), bar.c_str(),
                static_cast<double>(done * tokens_per_step_) / elapsed, smoothed_loss_, lr,
                duration_text(left).c_str());
  last_line_ = line;
  std::fprintf(stderr, "\r%s\x1b[K", line);
  std::fflush(stderr);
}

void progress_line::note(const std::string& text) {
  std::fprintf(stderr, "\r\x1b[K%s\n%s", text.c_str(), last_line_.c_str());
  std::fflush(stderr);
}

void progress_line::finish() { std::fprintf(stderr, "\n"); }

}  // namespace pagedserve::train
