#pragma once
// Settings of the device the SIMT emulator pretends to be (kernels/cuda/emulator), for tests
// that exercise memory sizing: the "device" is host memory with a fixed budget. One thread
// at a time drives an emulated backend (its stream's queue is not locked), as one executor
// thread drives a real one.

#include <cstdint>

namespace pagedserve::kernels::cuda {

inline constexpr const char* emulated_device_name = "SIMT emulator (CPU)";

// Total device memory that allocations count against (default 4 GiB). Not thread-safe with
// allocations in flight; tests set it before they create a backend.
void set_emulated_device_memory(std::int64_t bytes);

}  // namespace pagedserve::kernels::cuda
