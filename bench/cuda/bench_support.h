#pragma once
// Shared by the CUDA benchmarks: device timing (median of repeated CUDA-event timings after
// warm-ups), the card's ceilings they report against, and model shapes from config files.
// They build for the GPU and for the SIMT emulator (whose figures only show that the
// program runs: the emulator's timings mean nothing).

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "kernels/cuda/cuda_backend.h"
#include "kernels/cuda/device_info.h"
#include "runtime/model/model_config.h"

namespace pagedserve::bench {

// docs/design/gpu-runbook.md: measured on the H200 this project tests on.
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

// A benchmark's start: the device line printed and a bf16 CUDA backend on it. No backend where
// there is no device (exit_code 0: nothing to measure, said on stdout) or it cannot be made
// (exit_code 1, said on stderr).
struct bench_device {
  std::unique_ptr<kernels::backend> backend;
  bool emulated = false;
  int exit_code = 0;
};

inline bench_device open_bench_device(const char* program) {
  bench_device device;
  std::string why;
  const auto info = kernels::cuda::query_device(&why);
  if (!info) {
    std::printf("%s: no CUDA device: %s\n", program, why.c_str());
    return device;
  }
  std::printf("device: %s sm_%d%d, %d SMs%s\n", info->name.c_str(), info->compute_major,
              info->compute_minor, info->num_sms,
              info->emulated ? " (emulated: small shapes, timings meaningless)" : "");
  auto made = kernels::make_cuda_backend({kernels::dtype::bf16, 0});
  if (!made) {
    std::fprintf(stderr, "%s: %s\n", program, made.err().message.c_str());
    device.exit_code = 1;
    return device;
  }
  device.backend = std::move(made).value();
  device.emulated = info->emulated;
  return device;
}

// The value of `--runs N` on the command line (at least `least`), else `fallback`.
inline int runs_flag(int argc, char** argv, int least, int fallback = 100) {
  int runs = fallback;
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::string(argv[i]) == "--runs") runs = std::max(least, std::atoi(argv[i + 1]));
  }
  return runs;
}

// A linear projection of a model: W [out_features, in_features].
struct projection {
  const char* model;
  const char* name;
  int out_features;
  int in_features;
};

// Llama-3.2-1B's and Llama-3-8B's: q/k/v fused, o, gate/up fused, down.
inline const std::vector<projection> llama_projections = {
    {"llama-3.2-1b", "qkv", 3072, 2048},      {"llama-3.2-1b", "o", 2048, 2048},
    {"llama-3.2-1b", "gate_up", 16384, 2048}, {"llama-3.2-1b", "down", 2048, 8192},
    {"llama-3-8b", "qkv", 6144, 4096},        {"llama-3-8b", "o", 4096, 4096},
    {"llama-3-8b", "gate_up", 28672, 4096},   {"llama-3-8b", "down", 4096, 14336},
};

inline result<model_config> read_model_config(const std::string& path) {
  std::ifstream in(path);
  if (!in) return make_error(error_code::not_found, "cannot open " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return parse_model_config(text.str(), path);
}

}  // namespace pagedserve::bench
