#pragma once
// The CUDA backend for tests that run on it (or on the SIMT emulator, which links the same
// API): a backend of `type`, or null with the reason (no device here: skip).

#include <memory>
#include <string>

#include "kernels/cuda/cuda_backend.h"
#include "kernels/cuda/device_info.h"

namespace pagedserve::testing {

inline std::unique_ptr<kernels::backend> device_backend(kernels::dtype type, std::string* why) {
  if (!kernels::cuda::query_device(why)) return nullptr;
  auto made = kernels::make_cuda_backend({type, 0});
  if (!made) {
    *why = made.err().message;
    return nullptr;
  }
  return std::move(made).value();
}

}  // namespace pagedserve::testing
