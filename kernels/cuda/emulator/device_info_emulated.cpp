// query_device under the SIMT emulator: one Hopper-class device whose memory is the emulated
// budget (emulated_device.h). Tests that need a device find one, and name it in their output.

#include "kernels/cuda/device_info.h"
#include "kernels/cuda/device_runtime.h"
#include "kernels/cuda/emulator/emulated_device.h"

namespace pagedserve::kernels::cuda {

std::optional<device_info> query_device(std::string* /*why*/) {
  auto runtime = device_runtime::create(0, dtype::f32);
  const std::int64_t total = runtime ? (*runtime)->memory().total_bytes : 0;
  return device_info{emulated_device_name, 9, 0, 1, total, 0, true};
}

}  // namespace pagedserve::kernels::cuda
