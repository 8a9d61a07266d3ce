// The SIMT emulator's scheduler: one fiber per CUDA thread (boost.context), blocks run one
// after another on the calling OS thread. See simt.h for the model and what it checks.
//
// State of a thread, and who moves it:
//   runnable ──(reaches __syncthreads)──> at_barrier ──(last live thread arrives)──> runnable
//   runnable ──(reaches a collective)───> at_collective ──(last lane of the mask)──> runnable
//   runnable ──(returns from the kernel)─> exited
// The scheduler resumes one runnable thread at a time (which one: the schedule, simt.h) until
// it blocks or exits; no runnable thread with threads left is a deadlock.
//
// Warp deposits are double-buffered by collective generation: a lane may still be reading
// generation g's deposits while faster lanes write generation g + 1's; no lane can write
// generation g + 2's before every lane has arrived at g + 1, i.e. finished reading g.

#include "kernels/cuda/emulator/simt.h"

#include <boost/context/fiber.hpp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#endif

namespace pagedserve::simt {
namespace {

namespace ctx = boost::context;

// Fiber stacks: ASan's redzones make frames several times larger than in a release build.
constexpr std::size_t stack_bytes = std::size_t{512} * 1024;
constexpr unsigned int max_threads_per_block = 1024;
constexpr std::size_t max_dynamic_shared_bytes = std::size_t{227} * 1024;  // sm_90 opt-in limit

enum class thread_status : std::uint8_t { runnable, at_barrier, at_collective, exited };

const char* status_name(thread_status s) {
  switch (s) {
    case thread_status::runnable:
      return "runnable";
    case thread_status::at_barrier:
      return "waiting at __syncthreads";
    case thread_status::at_collective:
      return "waiting in a warp collective";
    case thread_status::exited:
      return "exited";
  }
  return "?";
}

// Stacks outlive launches (reused by thread index): allocating 1,024 of them per block would
// dominate small kernels. Pages are committed only when touched.
class stack_pool {
 public:
  void* stack(std::size_t index) {
    while (stacks_.size() <= index) stacks_.emplace_back(new std::byte[stack_bytes]);
    return stacks_[index].get();
  }

 private:
  std::vector<std::unique_ptr<std::byte[]>> stacks_;
};

// boost.context's StackAllocator concept over one pooled stack.
struct pooled_stack {
  void* base;

  ctx::stack_context allocate() const {
    ctx::stack_context sc;
    sc.size = stack_bytes;
    sc.sp = static_cast<std::byte*>(base) + stack_bytes;
    return sc;
  }
  void deallocate(ctx::stack_context& /*unused*/) const noexcept {}
};

struct emulated_thread {
  thread_context context;
  thread_status status = thread_status::runnable;
  void* stack_base = nullptr;
  ctx::fiber fiber;      // the thread while it is suspended
  ctx::fiber scheduler;  // the scheduler while the thread runs
  // ASan: the scheduler's stack, learnt when the thread first starts.
  const void* scheduler_stack_bottom = nullptr;
  std::size_t scheduler_stack_size = 0;
};

struct warp_state {
  unsigned existing = 0;  // lanes the block has (the last warp may be partial)
  unsigned exited = 0;
  unsigned arrived = 0;  // lanes waiting in the pending collective
  unsigned mask = 0;     // the pending collective's mask
  unsigned generation = 0;
  alignas(16) std::byte slots[2][warp_size][max_exchange_bytes];
};

struct block_run {
  std::vector<emulated_thread> threads;
  std::vector<std::unique_ptr<warp_state>> warps;
  std::unique_ptr<std::byte[]> dynamic_shared;
  int live = 0;
  int at_barrier = 0;
  // No thread below `lowest_runnable` (above `highest_runnable`) is runnable: the priority
  // schedules start their search there instead of at the ends.
  int lowest_runnable = 0;
  int highest_runnable = 0;

  void make_runnable(std::size_t i) {
    threads[i].status = thread_status::runnable;
    lowest_runnable = std::min(lowest_runnable, static_cast<int>(i));
    highest_runnable = std::max(highest_runnable, static_cast<int>(i));
  }
};

thread_local block_run* g_block = nullptr;
thread_local emulated_thread* g_thread = nullptr;
thread_local stack_pool g_stacks;
std::map<const void*, std::size_t> g_dynamic_shared_allowed;  // kernel -> opted-in bytes
schedule initial_schedule() {
  const char* value = std::getenv("PAGEDSERVE_SIMT_SCHEDULE");
  if (value == nullptr) return schedule::lowest_first;
  if (std::strcmp(value, "highest_first") == 0) return schedule::highest_first;
  if (std::strcmp(value, "round_robin") == 0) return schedule::round_robin;
  return schedule::lowest_first;
}
schedule g_schedule = initial_schedule();

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "simt emulator: %s", what);
  if (g_thread != nullptr) {
    const thread_context& c = g_thread->context;
    std::fprintf(stderr, " (block %u,%u,%u thread %u,%u,%u)", c.block_idx.x, c.block_idx.y,
                 c.block_idx.z, c.thread_idx.x, c.thread_idx.y, c.thread_idx.z);
  }
  std::fprintf(stderr, "\n");
  std::abort();
}

// ASan must be told about every stack switch, or it mistakes the fibers' frames for overflows.
void before_switch([[maybe_unused]] void** fake_stack, [[maybe_unused]] const void* bottom,
                   [[maybe_unused]] std::size_t size) {
#if defined(__SANITIZE_ADDRESS__)
  __sanitizer_start_switch_fiber(fake_stack, bottom, size);
#endif
}
void after_switch([[maybe_unused]] void* fake_stack, [[maybe_unused]] const void** old_bottom,
                  [[maybe_unused]] std::size_t* old_size) {
#if defined(__SANITIZE_ADDRESS__)
  __sanitizer_finish_switch_fiber(fake_stack, old_bottom, old_size);
#endif
}

// From the running thread back to the scheduler; returns when the scheduler resumes it.
void yield_to_scheduler() {
  emulated_thread& t = *g_thread;
  void* fake_stack = nullptr;
  before_switch(&fake_stack, t.scheduler_stack_bottom, t.scheduler_stack_size);
  t.scheduler = std::move(t.scheduler).resume();
  after_switch(fake_stack, &t.scheduler_stack_bottom, &t.scheduler_stack_size);
}

void release_barrier(block_run& b) {
  for (std::size_t i = 0; i < b.threads.size(); ++i) {
    if (b.threads[i].status == thread_status::at_barrier) b.make_runnable(i);
  }
  b.at_barrier = 0;
}

void on_exit(block_run& b, emulated_thread& t) {
  --b.live;
  warp_state& w = *b.warps[static_cast<std::size_t>(t.context.warp())];
  const unsigned bit = 1U << t.context.lane();
  w.exited |= bit;
  if (w.arrived != 0 && (w.mask & bit) != 0) {
    g_thread = &t;
    fail("a lane exited while its warp waits for it in a collective");
  }
  if (b.at_barrier > 0 && b.at_barrier == b.live) release_barrier(b);
}

[[noreturn]] void report_deadlock(const block_run& b) {
  std::fprintf(stderr, "simt emulator: deadlock in block %u,%u,%u; threads not exited:\n",
               b.threads.front().context.block_idx.x, b.threads.front().context.block_idx.y,
               b.threads.front().context.block_idx.z);
  int shown = 0;
  for (const emulated_thread& t : b.threads) {
    if (t.status == thread_status::exited) continue;
    if (shown++ < 64) {
      std::fprintf(stderr, "  thread %d (warp %d lane %d): %s\n", t.context.linear,
                   t.context.warp(), t.context.lane(), status_name(t.status));
    }
  }
  std::fprintf(stderr, "  (%d threads in all)\n", shown);
  std::abort();
}

void check_shape(const launch_shape& s) {
  const unsigned long long threads =
      static_cast<unsigned long long>(s.block.x) * s.block.y * s.block.z;
  if (threads == 0 || threads > max_threads_per_block) fail("block size outside 1..1024");
  if (s.grid.x == 0 || s.grid.y == 0 || s.grid.z == 0) fail("empty grid");
  if (s.grid.y > 65535 || s.grid.z > 65535) fail("grid.y or grid.z above 65535");
  if (s.dynamic_shared_bytes > max_dynamic_shared_bytes) {
    fail("more dynamic shared memory than an sm_90 block can have");
  }
}

void start_thread(block_run& b, std::size_t index, const std::function<void()>& kernel) {
  emulated_thread& t = b.threads[index];
  t.stack_base = g_stacks.stack(index);
  t.fiber = ctx::fiber(std::allocator_arg, pooled_stack{t.stack_base},
                       [&t, &kernel](ctx::fiber&& scheduler) {
                         t.scheduler = std::move(scheduler);
                         after_switch(nullptr, &t.scheduler_stack_bottom, &t.scheduler_stack_size);
                         kernel();
                         t.status = thread_status::exited;
                         // Leaving this stack for good: no fake stack to keep.
                         before_switch(nullptr, t.scheduler_stack_bottom, t.scheduler_stack_size);
                         return std::move(t.scheduler);
                       });
}

void resume(block_run& b, emulated_thread& t) {
  g_thread = &t;
  void* fake_stack = nullptr;
  before_switch(&fake_stack, t.stack_base, stack_bytes);
  t.fiber = std::move(t.fiber).resume();
  after_switch(fake_stack, nullptr, nullptr);
  g_thread = nullptr;
  if (t.status == thread_status::exited) on_exit(b, t);
}

// Resumes the lowest (or highest) numbered runnable thread, again and again.
void run_by_priority(block_run& b, bool lowest_first) {
  const auto n = static_cast<int>(b.threads.size());
  b.lowest_runnable = 0;
  b.highest_runnable = n - 1;
  const auto runnable = [&](int i) {
    return b.threads[static_cast<std::size_t>(i)].status == thread_status::runnable;
  };
  while (b.live > 0) {
    int next = -1;
    if (lowest_first) {
      for (int i = b.lowest_runnable; i < n && next < 0; ++i) next = runnable(i) ? i : -1;
      b.lowest_runnable = next < 0 ? n : next;
    } else {
      for (int i = b.highest_runnable; i >= 0 && next < 0; --i) next = runnable(i) ? i : -1;
      b.highest_runnable = next < 0 ? -1 : next;
    }
    if (next < 0) report_deadlock(b);
    resume(b, b.threads[static_cast<std::size_t>(next)]);
  }
}

void run_round_robin(block_run& b) {
  while (b.live > 0) {
    bool resumed = false;
    for (emulated_thread& t : b.threads) {
      if (t.status != thread_status::runnable) continue;
      resume(b, t);
      resumed = true;
    }
    if (!resumed) report_deadlock(b);
  }
}

void run_block(const launch_shape& s, uint3 block_idx, const std::function<void()>& kernel) {
  block_run b;
  const unsigned int num_threads = s.block.x * s.block.y * s.block.z;
  b.threads.resize(num_threads);
  const unsigned int num_warps = (num_threads + warp_size - 1) / warp_size;
  for (unsigned int w = 0; w < num_warps; ++w) {
    b.warps.push_back(std::make_unique<warp_state>());
    const unsigned int lanes = std::min<unsigned int>(warp_size, num_threads - w * warp_size);
    b.warps.back()->existing = lanes == warp_size ? ~0U : (1U << lanes) - 1U;
  }
  if (s.dynamic_shared_bytes > 0) {
    b.dynamic_shared.reset(new std::byte[s.dynamic_shared_bytes]);
    std::memset(b.dynamic_shared.get(), 0xFF, s.dynamic_shared_bytes);  // never-written = NaN
  }
  for (unsigned int i = 0; i < num_threads; ++i) {
    thread_context& c = b.threads[i].context;
    c.thread_idx = {i % s.block.x, (i / s.block.x) % s.block.y, i / (s.block.x * s.block.y)};
    c.block_idx = block_idx;
    c.block_dim = s.block;
    c.grid_dim = s.grid;
    c.linear = static_cast<int>(i);
    start_thread(b, i, kernel);
  }
  b.live = static_cast<int>(num_threads);
  block_run* const outer = g_block;
  g_block = &b;
  if (g_schedule == schedule::round_robin) {
    run_round_robin(b);
  } else {
    run_by_priority(b, g_schedule == schedule::lowest_first);
  }
  g_block = outer;
}

}  // namespace

void set_schedule(schedule order) { g_schedule = order; }
schedule get_schedule() { return g_schedule; }

void allow_dynamic_shared(const void* kernel, std::size_t bytes) {
  if (bytes > max_dynamic_shared_bytes) fail("cudaFuncSetAttribute: shared memory above 227 KiB");
  g_dynamic_shared_allowed[kernel] = bytes;
}

void check_dynamic_shared(const void* kernel, std::size_t bytes) {
  constexpr std::size_t default_limit = std::size_t{48} * 1024;
  if (bytes <= default_limit) return;
  const auto it = g_dynamic_shared_allowed.find(kernel);
  if (it == g_dynamic_shared_allowed.end() || it->second < bytes) {
    fail("a launch asks for more than 48 KiB of dynamic shared memory without the opt-in");
  }
}

void enqueue(cudaStream_t stream, std::function<void()> work) {
  if (stream == nullptr) {
    work();
  } else if (stream->capture != nullptr) {
    stream->capture->push_back(std::move(work));
  } else {
    stream->pending.push_back(std::move(work));
  }
}

void drain(cudaStream_t stream) {
  if (stream == nullptr) return;
  while (!stream->pending.empty()) {
    const std::function<void()> work = std::move(stream->pending.front());
    stream->pending.pop_front();
    work();
  }
}

void launch(const launch_shape& shape, const std::function<void()>& kernel) {
  check_shape(shape);
  if (g_block != nullptr) fail("a kernel launched another kernel");
  for (unsigned int z = 0; z < shape.grid.z; ++z) {
    for (unsigned int y = 0; y < shape.grid.y; ++y) {
      for (unsigned int x = 0; x < shape.grid.x; ++x) run_block(shape, {x, y, z}, kernel);
    }
  }
}

thread_context& current() {
  if (g_thread == nullptr) fail("a device built-in was used outside a kernel");
  return g_thread->context;
}

void* dynamic_shared() {
  if (g_block == nullptr || !g_block->dynamic_shared) {
    fail("dynamic shared memory used by a launch that asked for none");
  }
  return g_block->dynamic_shared.get();
}

void sync_threads() {
  if (g_thread == nullptr) fail("__syncthreads outside a kernel");
  block_run& b = *g_block;
  g_thread->status = thread_status::at_barrier;
  // The last arrival opens the barrier but still yields, so the schedule decides who runs
  // first after it.
  if (++b.at_barrier == b.live) release_barrier(b);
  yield_to_scheduler();
}

const std::byte* warp_exchange(unsigned mask, const void* data, std::size_t size) {
  if (g_thread == nullptr) fail("a warp collective outside a kernel");
  if (size > max_exchange_bytes) fail("warp collective payload too large");
  block_run& b = *g_block;
  emulated_thread& t = *g_thread;
  const int lane = t.context.lane();
  warp_state& w = *b.warps[static_cast<std::size_t>(t.context.warp())];
  const unsigned bit = 1U << lane;
  if ((mask & bit) == 0) fail("a lane ran a warp collective whose mask leaves it out");
  if ((mask & ~w.existing) != 0) fail("a warp collective's mask names lanes the block lacks");
  if ((mask & w.exited) != 0) fail("a warp collective's mask names a lane that has exited");
  if (w.arrived == 0) {
    w.mask = mask;
  } else if (w.mask != mask) {
    fail("lanes of one warp ran collectives with different masks");
  }
  std::byte* slots = &w.slots[w.generation & 1U][0][0];
  if (size > 0)
    std::memcpy(slots + static_cast<std::size_t>(lane) * max_exchange_bytes, data, size);
  w.arrived |= bit;
  if (w.arrived != w.mask) {
    t.status = thread_status::at_collective;
    yield_to_scheduler();
    return slots;
  }
  // The last lane wakes the others, opens the next generation and yields like them.
  const std::size_t first = static_cast<std::size_t>(t.context.warp()) * warp_size;
  for (int l = 0; l < warp_size; ++l) {
    if ((w.mask & (1U << l)) != 0 && l != lane)
      b.make_runnable(first + static_cast<std::size_t>(l));
  }
  w.arrived = 0;
  ++w.generation;
  yield_to_scheduler();
  return slots;
}

void trap() { fail("device code trapped (__trap)"); }

}  // namespace pagedserve::simt
