// GPU tests carry the CTest label "gpu" and skip with a message where no device exists.
#include "kernels/cuda/device_info.h"

#include <gtest/gtest.h>

namespace pagedserve::kernels::cuda {
namespace {

TEST(CudaDevice, ReportsAHopperClassDeviceWhenOneIsPresent) {
  std::string why;
  const auto info = query_device(&why);
  if (!info) GTEST_SKIP() << "no CUDA device: " << why;
  EXPECT_FALSE(info->name.empty());
  EXPECT_GE(info->compute_major, 9) << "the CUDA build targets sm_90a (Hopper)";
  EXPECT_GT(info->num_sms, 0);
  EXPECT_GT(info->total_memory_bytes, 0);
}

}  // namespace
}  // namespace pagedserve::kernels::cuda
