#pragma once
// What the CUDA runtime reports about device 0 (or what the SIMT emulator pretends to be, in
// the emulated build). No CUDA types in this header.

#include <cstdint>
#include <optional>
#include <string>

namespace pagedserve::kernels::cuda {

struct device_info {
  std::string name;
  int compute_major = 0;
  int compute_minor = 0;
  int num_sms = 0;
  std::int64_t total_memory_bytes = 0;
  std::int64_t l2_cache_bytes = 0;
  bool emulated = false;  // the SIMT emulator (kernels/cuda/emulator), not a GPU
};

// The first device, or nullopt (with `why` set) when no usable device or driver exists.
[[nodiscard]] std::optional<device_info> query_device(std::string* why = nullptr);

}  // namespace pagedserve::kernels::cuda
