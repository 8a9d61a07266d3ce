#pragma once
// simt: a CPU emulator of the CUDA execution model, so the project's CUDA kernels run (and are
// tested against the CPU reference) on machines without a GPU, CI among them.
//
// Every CUDA thread of a block is a fiber (its own stack, so locals are per thread); blocks
// run one after another on the calling OS thread. A fiber runs until it reaches a barrier
// (__syncthreads), a warp collective (shuffles, ballots, __syncwarp, mma) or its end; the
// scheduler then resumes the next runnable thread. A barrier opens when every live thread of
// the block waits at it; a warp collective completes when every lane its mask names has
// arrived. When nothing can run and threads remain, the kernel is wrong (a barrier in
// divergent code, a collective whose mask names an exited lane): the emulator prints every
// thread's state and aborts.
//
// What it checks beyond the arithmetic: barrier and mask discipline (above), reads of
// dynamic shared memory that was never written (it starts as 0xFF bytes: NaN for floats),
// host-side out-of-bounds accesses (under ASan), and data races between barriers: the
// default schedule runs the lowest-numbered runnable thread, so warp 0 reaches its next
// __syncthreads before warp 1 starts; a read of data another warp writes before a missing
// barrier sees the poison or a stale value. highest_first catches the other direction.
// What it cannot check: memory-model effects beyond barriers, timing, the hardware's own
// limits (registers, shared memory size, occupancy).
//
// Device code does not call this header directly: kernels/cuda/emulator/prelude.h maps the
// CUDA built-ins (threadIdx, __syncthreads, __shfl_xor_sync, ...) onto it.

#include <driver_types.h>
#include <vector_types.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <vector>

// An emulated CUDA stream (driver_types.h leaves the type incomplete for us to define): work
// enqueued on it runs, in order, only when the stream is drained (the emulated runtime's
// synchronize), so host code that reads results before waiting reads stale memory, as it
// would on the device. While `capture` is set, enqueued work is recorded there instead.
struct CUstream_st {
  std::deque<std::function<void()>> pending;
  std::vector<std::function<void()>>* capture = nullptr;
};

namespace pagedserve::simt {

inline constexpr int warp_size = 32;
// Bytes each lane may deposit in one warp collective (an mma's fragments fit).
inline constexpr std::size_t max_exchange_bytes = 64;

struct thread_context {
  uint3 thread_idx{};
  uint3 block_idx{};
  dim3 block_dim;
  dim3 grid_dim;
  int linear = 0;  // thread_idx.x + block_dim.x * (thread_idx.y + block_dim.y * thread_idx.z)

  [[nodiscard]] int lane() const { return linear % warp_size; }
  [[nodiscard]] int warp() const { return linear / warp_size; }
};

struct launch_shape {
  dim3 grid;
  dim3 block;
  std::size_t dynamic_shared_bytes = 0;
};

// Which runnable thread of a block the scheduler resumes next. A race-free kernel gives the
// same result under every schedule. The environment variable PAGEDSERVE_SIMT_SCHEDULE
// (lowest_first, highest_first, round_robin) sets the initial one.
enum class schedule : std::uint8_t {
  lowest_first,   // warps run one after another between barriers, warp 0 first
  highest_first,  // the same, the last warp first
  round_robin,    // one sweep over all threads at a time: warps advance nearly in lockstep
};

void set_schedule(schedule order);
[[nodiscard]] schedule get_schedule();

// Runs `kernel` on every thread of every block of `shape`; returns when all have finished.
// Aborts with a report when the kernel deadlocks or breaks a collective's rules.
void launch(const launch_shape& shape, const std::function<void()>& kernel);

// cudaFuncSetAttribute(kernel, MaxDynamicSharedMemorySize, bytes), and the check the hardware
// makes at launch: more than 48 KiB of dynamic shared memory needs that opt-in first.
void allow_dynamic_shared(const void* kernel, std::size_t bytes);
void check_dynamic_shared(const void* kernel, std::size_t bytes);

// Runs `work` now (null stream) or appends it to the stream's queue (or its capture).
void enqueue(cudaStream_t stream, std::function<void()> work);
// Runs everything queued on `stream`, in order.
void drain(cudaStream_t stream);

// Inside a launch: the running thread, and its block's dynamic shared memory.
[[nodiscard]] thread_context& current();
[[nodiscard]] void* dynamic_shared();

// __syncthreads: waits until every live thread of the block has arrived.
void sync_threads();

// Deposits `size` bytes (<= max_exchange_bytes) for the warp and waits until every lane of
// `mask` has deposited. Returns the deposits, lane i's at offset i * max_exchange_bytes; they
// stay valid until this lane's next collective. Lanes outside `mask` hold nothing.
[[nodiscard]] const std::byte* warp_exchange(unsigned mask, const void* data, std::size_t size);

// Device-side failure (__trap): prints the thread and aborts.
[[noreturn]] void trap();

}  // namespace pagedserve::simt
