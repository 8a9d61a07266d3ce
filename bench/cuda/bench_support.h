#pragma once
// Shared by the CUDA benchmarks: device timing (median of repeated CUDA-event timings after
// warm-ups), the card's ceilings they report against, and model shapes from config files.
// They build for the GPU and for the SIMT emulator (whose figures only show that the
// program runs: the emulator's timings mean nothing).

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "kernels/cuda/cuda_backend.h"
#include "runtime/model/model_config.h"

namespace pagedserve::bench {

// shared/device/RUNBOOK.md: measured on the H200 this project tests on.
inline constexpr double h200_copy_bytes_per_s = 4.27e12;  // device-to-device, read + write
inline constexpr double h200_bf16_flops = 789e12;         // 8192^3 matmul

// Median seconds of `ops` on the device over `runs` timings after `warmups` untimed runs.
inline double median_seconds(kernels::backend& cuda, int warmups, int runs,
                             const std::function<void()>& ops) {
  for (int i = 0; i < warmups; ++i) ops();
  std::vector<double> times;
  for (int i = 0; i < runs; ++i) times.push_back(kernels::time_on_stream(cuda, ops));
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

inline result<model_config> read_model_config(const std::string& path) {
  std::ifstream in(path);
  if (!in) return make_error(error_code::not_found, "cannot open " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return parse_model_config(text.str(), path);
}

}  // namespace pagedserve::bench
