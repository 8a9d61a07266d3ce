#pragma once
// A one-line progress bar on stderr, redrawn in place ("\r"), only when stderr is a terminal:
//   [#########...........]  120/256  3 failed  12.3 s
// Redraws at most 10 times a second; finish() ends the line.

#include <chrono>
#include <cstddef>

namespace pagedserve::loadtest {

class progress_bar {
 public:
  // enabled = false draws nothing (use stderr_is_terminal() for the default).
  progress_bar(std::size_t total, bool enabled);
  void update(std::size_t done, std::size_t failed);
  void finish();

  [[nodiscard]] static bool stderr_is_terminal();

 private:
  std::size_t total_;
  bool enabled_;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_;
};

}  // namespace pagedserve::loadtest
