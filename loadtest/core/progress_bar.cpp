#include "loadtest/core/progress_bar.h"

#include <unistd.h>

#include <cstdio>
#include <string>

namespace pagedserve::loadtest {

namespace {

constexpr std::size_t bar_width = 20;
constexpr std::chrono::milliseconds redraw_period{100};

void draw(std::size_t done, std::size_t total, std::size_t failed, double elapsed_s) {
  const std::size_t filled = total == 0 ? bar_width : std::min(bar_width, done * bar_width / total);
  const std::string bar = std::string(filled, '#') + std::string(bar_width - filled, '.');
  std::fprintf(stderr, "\r[%s]  %zu/%zu  %zu failed  %.1f s", bar.c_str(), done, total, failed,
               elapsed_s);
  std::fflush(stderr);
}

}  // namespace

progress_bar::progress_bar(std::size_t total, bool enabled)
    : total_(total),
      enabled_(enabled),
      start_(std::chrono::steady_clock::now()),
      last_draw_(start_ - redraw_period) {}

void progress_bar::update(std::size_t done, std::size_t failed) {
  if (!enabled_) {
    return;
  }
  const auto now = std::chrono::steady_clock::now();
  // The last update always draws, so the bar ends full.
  if (now - last_draw_ < redraw_period && done < total_) {
    return;
  }
  last_draw_ = now;
  draw(done, total_, failed, std::chrono::duration<double>(now - start_).count());
}

void progress_bar::finish() {
  if (!enabled_) {
    return;
  }
  std::fputc('\n', stderr);
  std::fflush(stderr);
  enabled_ = false;
}

bool progress_bar::stderr_is_terminal() { return isatty(STDERR_FILENO) == 1; }

}  // namespace pagedserve::loadtest
