// The SIMT emulator itself (kernels/cuda/emulator): coordinates, barriers, shuffles with
// PTX's width rules, ballots, the schedules' race detection, the aborts it promises for
// broken kernels, and its streams and graph capture. Expected values come from the CUDA
// programming guide's definitions, written out here independently of the emulator.

#include "kernels/cuda/emulator/prelude.h"  // first: device code below is emulated

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "kernels/cuda/launch.cuh"

namespace pagedserve::kernels::cuda {
namespace {

__global__ void coordinates_kernel(int* out) {
  const int block =
      static_cast<int>(blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z));
  const int thread =
      static_cast<int>(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z));
  const int threads_per_block = static_cast<int>(blockDim.x * blockDim.y * blockDim.z);
  out[block * threads_per_block + thread] = block * 1000 + thread;
}

TEST(SimtEmulator, EveryThreadOfEveryBlockRunsOnceWithItsCoordinates) {
  const dim3 grid(3, 2, 2);
  const dim3 block(4, 3, 2);
  std::vector<int> out(12 * 24, -1);
  launch_kernel(coordinates_kernel, grid, block, 0, nullptr, out.data());
  for (int b = 0; b < 12; ++b) {
    for (int t = 0; t < 24; ++t) EXPECT_EQ(out[static_cast<std::size_t>(b * 24 + t)], b * 1000 + t);
  }
}

// Each thread writes its slot, waits, then reads its neighbour's: correct only with the
// barrier (the poisoned dynamic shared memory reads as NaN otherwise).
template <bool with_barrier>
__global__ void neighbour_kernel(float* out) {
  DYNAMIC_SHARED(float, slots);
  const auto i = static_cast<int>(threadIdx.x);
  const auto n = static_cast<int>(blockDim.x);
  slots[i] = static_cast<float>(i);
  if (with_barrier) __syncthreads();
  out[i] = slots[(i + 1) % n];
}

std::vector<float> run_neighbours(bool with_barrier, simt::schedule order) {
  const simt::schedule before = simt::get_schedule();
  simt::set_schedule(order);
  std::vector<float> out(128, -1.0F);
  if (with_barrier) {
    launch_kernel(neighbour_kernel<true>, dim3(1), dim3(128), 128 * sizeof(float), nullptr,
                  out.data());
  } else {
    launch_kernel(neighbour_kernel<false>, dim3(1), dim3(128), 128 * sizeof(float), nullptr,
                  out.data());
  }
  simt::set_schedule(before);
  return out;
}

TEST(SimtEmulator, ABarrierOrdersSharedMemoryUnderEverySchedule) {
  for (auto order :
       {simt::schedule::lowest_first, simt::schedule::highest_first, simt::schedule::round_robin}) {
    const auto out = run_neighbours(true, order);
    for (int i = 0; i < 128; ++i) EXPECT_EQ(out[static_cast<std::size_t>(i)], (i + 1) % 128);
  }
}

TEST(SimtEmulator, AMissingBarrierShowsAsNeverWrittenSharedMemory) {
  for (auto order : {simt::schedule::lowest_first, simt::schedule::highest_first}) {
    const auto out = run_neighbours(false, order);
    int poisoned = 0;
    for (float v : out) poisoned += std::isnan(v) ? 1 : 0;
    EXPECT_GT(poisoned, 0) << "schedule " << static_cast<int>(order);
  }
}

__global__ void static_shared_kernel(int* out) {
  __shared__ int total;
  if (threadIdx.x == 0) total = 0;
  __syncthreads();
  atomicAdd(&total, static_cast<int>(threadIdx.x));
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = total;
}

TEST(SimtEmulator, StaticSharedVariablesAreOnePerBlock) {
  std::vector<int> out(2 * 64, -1);
  launch_kernel(static_shared_kernel, dim3(2), dim3(64), 0, nullptr, out.data());
  for (int v : out) EXPECT_EQ(v, 63 * 64 / 2);
}

// Lane l holds 100 + l; each kind of shuffle reads where the programming guide says.
__global__ void shuffle_kernel(int* out, int width) {
  const auto lane = static_cast<int>(threadIdx.x);
  const int value = 100 + lane;
  out[lane] = __shfl_xor_sync(0xffffffffU, value, 5, width);
  out[32 + lane] = __shfl_down_sync(0xffffffffU, value, 3, width);
  out[64 + lane] = __shfl_up_sync(0xffffffffU, value, 3, width);
  out[96 + lane] = __shfl_sync(0xffffffffU, value, 2, width);
  out[128 + lane] = static_cast<int>(__ballot_sync(0xffffffffU, lane % 3 == 0));
}

TEST(SimtEmulator, ShufflesFollowThePtxRulesForEveryWidth) {
  for (int width : {32, 16, 8}) {
    std::vector<int> out(160, -1);
    launch_kernel(shuffle_kernel, dim3(1), dim3(32), 0, nullptr, out.data(), width);
    unsigned every_third = 0;
    for (int l = 0; l < 32; l += 3) every_third |= 1U << l;
    for (int lane = 0; lane < 32; ++lane) {
      const int begin = lane / width * width;
      const int end = begin + width;
      const int xor_source = (lane ^ 5) < end ? (lane ^ 5) : lane;
      const int down_source = lane + 3 < end ? lane + 3 : lane;
      const int up_source = lane - 3 >= begin ? lane - 3 : lane;
      const auto at = [&](int row) { return out[static_cast<std::size_t>(row * 32 + lane)]; };
      EXPECT_EQ(at(0), 100 + xor_source) << "xor, width " << width << " lane " << lane;
      EXPECT_EQ(at(1), 100 + down_source) << "down, width " << width << " lane " << lane;
      EXPECT_EQ(at(2), 100 + up_source) << "up, width " << width << " lane " << lane;
      EXPECT_EQ(at(3), 100 + begin + 2) << "idx, width " << width << " lane " << lane;
      EXPECT_EQ(static_cast<unsigned>(at(4)), every_third) << "ballot lane " << lane;
    }
  }
}

__global__ void divergent_barrier_kernel() {
  if (threadIdx.x < 16) __syncthreads();
}

__global__ void collective_after_exit_kernel(int* out) {
  if (threadIdx.x == 7) return;
  out[threadIdx.x] = __shfl_xor_sync(0xffffffffU, static_cast<int>(threadIdx.x), 1);
}

TEST(SimtEmulatorDeathTest, ABarrierThatSomeThreadsSkipIsADeadlock) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  // Threads 16..63 exit, 0..15 wait: the barrier opens (exited threads do not count). A
  // second warp that waits at a barrier its first warp never reaches does not.
  launch_kernel(divergent_barrier_kernel, dim3(1), dim3(64), 0, nullptr);
  EXPECT_DEATH(launch_kernel(collective_after_exit_kernel, dim3(1), dim3(32), 0, nullptr,
                             static_cast<int*>(nullptr)),
               "exited");
}

// Lane 0 waits at the barrier, lanes 1..31 in a shuffle that needs lane 0: neither ends.
__global__ void barrier_against_shuffle_kernel(int* out) {
  if (threadIdx.x == 0) {
    __syncthreads();
  } else {
    out[threadIdx.x] = __shfl_xor_sync(0xffffffffU, 1, 1);
  }
}

TEST(SimtEmulatorDeathTest, AWaitThatCanNeverEndIsReportedAsADeadlock) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  std::vector<int> out(32);
  EXPECT_DEATH(
      launch_kernel(barrier_against_shuffle_kernel, dim3(1), dim3(32), 0, nullptr, out.data()),
      "deadlock");
}

__global__ void big_shared_kernel(float* out) {
  DYNAMIC_SHARED(float, scratch);
  scratch[threadIdx.x] = 1.0F;
  __syncthreads();
  out[threadIdx.x] = scratch[(threadIdx.x + 1) % blockDim.x];
}

TEST(SimtEmulatorDeathTest, MoreThan48KiBOfDynamicSharedMemoryNeedsTheOptIn) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  std::vector<float> out(32);
  constexpr std::size_t bytes = 64 * 1024;
  EXPECT_DEATH(launch_kernel(big_shared_kernel, dim3(1), dim3(32), bytes, nullptr, out.data()),
               "48 KiB");
  allow_dynamic_shared(big_shared_kernel, bytes);
  launch_kernel(big_shared_kernel, dim3(1), dim3(32), bytes, nullptr, out.data());
  for (float v : out) EXPECT_EQ(v, 1.0F);
}

__global__ void add_one_kernel(int* x) { x[threadIdx.x] += 1; }

TEST(SimtEmulator, AStreamRunsItsWorkInOrderWhenDrainedAndAGraphReplaysIt) {
  CUstream_st stream;
  std::vector<int> x(8, 0);
  launch_kernel(add_one_kernel, dim3(1), dim3(8), 0, &stream, x.data());
  EXPECT_EQ(x[0], 0) << "nothing runs before the stream drains";
  simt::drain(&stream);
  EXPECT_EQ(x[0], 1);

  std::vector<std::function<void()>> graph;
  stream.capture = &graph;
  launch_kernel(add_one_kernel, dim3(1), dim3(8), 0, &stream, x.data());
  launch_kernel(add_one_kernel, dim3(1), dim3(8), 0, &stream, x.data());
  stream.capture = nullptr;
  simt::drain(&stream);
  EXPECT_EQ(x[0], 1) << "captured work is recorded, not run";
  for (int replay = 0; replay < 3; ++replay) {
    for (const auto& op : graph) simt::enqueue(&stream, op);
  }
  simt::drain(&stream);
  for (int v : x) EXPECT_EQ(v, 7);
}

}  // namespace
}  // namespace pagedserve::kernels::cuda
