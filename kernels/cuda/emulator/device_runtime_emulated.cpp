// device_runtime under the SIMT emulator: "device" memory is host memory, poisoned with 0xFF
// bytes (NaN as floats) when allocated, as cudaMalloc gives garbage; the stream is an
// emulated one (simt.h) that runs its queue at synchronize() (or when a marker on it is
// polled or waited for); GEMMs are a reference loop in fp32 standing in for cuBLAS; graphs
// are recorded queues replayed onto the stream. The device has a fixed memory size
// (emulated_device.h) and counts what is allocated, so KV pool sizing runs as on a GPU.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "kernels/check.h"
#include "kernels/cuda/device_runtime.h"
#include "kernels/cuda/emulator/emulated_device.h"
#include "kernels/cuda/emulator/simt.h"
#include "kernels/cuda/half_bits.h"

namespace pagedserve::kernels::cuda {
namespace {

constexpr std::size_t alignment = 256;  // cudaMalloc's

std::atomic<std::int64_t> g_device_bytes{std::int64_t{4} << 30};
std::atomic<std::int64_t> g_allocated_bytes{0};

// cudaFree waits for the whole device; so does the emulated free, or work still queued on a
// stream would use freed memory.
std::mutex g_streams_mutex;
std::vector<CUstream_st*> g_streams;

void drain_all_streams() {
  const std::lock_guard lock(g_streams_mutex);
  for (CUstream_st* s : g_streams) simt::drain(s);
}

// cudaFree while any stream of the process captures is refused on the GPU (the capture is
// thread-local, but the free synchronises the device): so it is a broken invariant here too.
bool any_stream_capturing() {
  const std::lock_guard lock(g_streams_mutex);
  return std::any_of(g_streams.begin(), g_streams.end(),
                     [](const CUstream_st* s) { return s->capture != nullptr; });
}

// Element i of a row-major tensor as fp32.
float load(const tensor& t, std::int64_t i) {
  switch (t.type) {
    case dtype::f32:
      return t.as<const float>()[i];
    case dtype::bf16:
      return bf16_bits_to_f32(t.as<const std::uint16_t>()[i]);
    case dtype::f16:
      return f16_bits_to_f32(t.as<const std::uint16_t>()[i]);
    case dtype::i32:
    case dtype::u8:
      break;
  }
  check_failed("gemm", "a floating-point type", __FILE__, __LINE__);
}

void store(const tensor& t, std::int64_t i, float value) {
  switch (t.type) {
    case dtype::f32:
      t.as<float>()[i] = value;
      return;
    case dtype::bf16:
      t.as<std::uint16_t>()[i] = f32_to_bf16_bits(value);
      return;
    case dtype::f16:
      t.as<std::uint16_t>()[i] = f32_to_f16_bits(value);
      return;
    case dtype::i32:
    case dtype::u8:
      break;
  }
  check_failed("gemm", "a floating-point type", __FILE__, __LINE__);
}

// out[m, n] = sum_k x[m, k] w[n, k] in fp32, both operands widened first (as cuBLAS does).
void reference_gemm(const tensor& out, const tensor& x, const tensor& weight) {
  const std::int64_t n_out = weight.dim(0);
  const std::int64_t k_in = weight.dim(1);
  const std::int64_t rows = x.numel() / k_in;
  std::vector<float> w(static_cast<std::size_t>(n_out * k_in));
  for (std::int64_t i = 0; i < n_out * k_in; ++i) w[static_cast<std::size_t>(i)] = load(weight, i);
  std::vector<float> row(static_cast<std::size_t>(k_in));
  for (std::int64_t m = 0; m < rows; ++m) {
    for (std::int64_t k = 0; k < k_in; ++k)
      row[static_cast<std::size_t>(k)] = load(x, m * k_in + k);
    for (std::int64_t n = 0; n < n_out; ++n) {
      const float* wn = w.data() + n * k_in;
      float acc = 0.0F;
      for (std::int64_t k = 0; k < k_in; ++k) acc += row[static_cast<std::size_t>(k)] * wn[k];
      store(out, m * n_out + n, acc);
    }
  }
}

class recorded_ops final : public captured_ops {
 public:
  recorded_ops(std::vector<std::function<void()>> ops, cudaStream_t stream)
      : ops_(std::move(ops)), stream_(stream) {}
  void replay() override {
    for (const auto& op : ops_) simt::enqueue(stream_, op);
  }

 private:
  std::vector<std::function<void()>> ops_;
  cudaStream_t stream_;
};

[[noreturn]] void refuse_capturing(const char* what) {
  check_failed(what, "not while a graph is being captured", __FILE__, __LINE__);
}

// A stream_marker on the emulated stream. record() queues a stamp behind the work queued so
// far; the stream runs only when drained, so passed() and wait() drain it (as synchronize
// does) unless the stamp has run already, and then answer true. The stamp notes the host
// clock as the emulator reaches it: the emulator's "device clock", as in time_on_stream, so
// seconds_since is the time the emulator took to run the work between two markers (plus any
// wait for a drain in between, as a GPU's idle time counts). The stamp shares the state it
// sets, so a marker may go while its last stamp is still queued.
class emulated_marker final : public stream_marker {
 public:
  explicit emulated_marker(CUstream_st* stream)
      : stream_(stream), state_(std::make_shared<state>()) {}

  void record() override {
    if (stream_->capture != nullptr) refuse_capturing("stream_marker::record");
    const std::uint64_t number = ++state_->num_records;
    simt::enqueue(stream_, [s = state_, number] {
      s->num_reached = number;
      s->reached_at = std::chrono::steady_clock::now();
    });
  }

  [[nodiscard]] bool passed() override {
    if (stream_->capture != nullptr) refuse_capturing("stream_marker::passed");
    if (!reached()) simt::drain(stream_);
    return true;
  }

  void wait() override {
    if (stream_->capture != nullptr) refuse_capturing("stream_marker::wait");
    if (!reached()) simt::drain(stream_);
  }

  [[nodiscard]] std::optional<double> seconds_since(const stream_marker& earlier) const override {
    const auto* start = dynamic_cast<const emulated_marker*>(&earlier);
    KERNEL_CHECK("stream_marker::seconds_since", start != nullptr);
    if (state_->num_records == 0 || start->state_->num_records == 0) return std::nullopt;
    KERNEL_CHECK("stream_marker::seconds_since", reached() && start->reached());
    return std::chrono::duration<double>(state_->reached_at - start->state_->reached_at).count();
  }

 private:
  struct state {
    std::uint64_t num_records = 0;  // record() calls so far
    std::uint64_t num_reached = 0;  // the last of them whose stamp has run
    std::chrono::steady_clock::time_point reached_at;
  };

  [[nodiscard]] bool reached() const { return state_->num_reached == state_->num_records; }

  CUstream_st* stream_;
  std::shared_ptr<state> state_;
};

}  // namespace

void set_emulated_device_memory(std::int64_t bytes) { g_device_bytes = bytes; }

struct device_runtime::impl {
  CUstream_st stream;

  void refuse_while_capturing(const char* what) const {
    if (stream.capture != nullptr) refuse_capturing(what);
  }
};

result<std::unique_ptr<device_runtime>> device_runtime::create(int device, dtype /*compute_type*/) {
  if (device != 0)
    return make_error(error_code::unsupported, "the SIMT emulator has device 0 only");
  return std::unique_ptr<device_runtime>(new device_runtime(std::make_unique<impl>()));
}

device_runtime::device_runtime(std::unique_ptr<impl> state) : impl_(std::move(state)) {
  const std::lock_guard lock(g_streams_mutex);
  g_streams.push_back(&impl_->stream);
}

device_runtime::~device_runtime() {
  simt::drain(&impl_->stream);
  const std::lock_guard lock(g_streams_mutex);
  std::erase(g_streams, &impl_->stream);
}

std::shared_ptr<void> device_runtime::allocate(std::size_t bytes) {
  impl_->refuse_while_capturing("allocate");
  const std::size_t rounded = std::max(alignment, (bytes + alignment - 1) / alignment * alignment);
  const auto size = static_cast<std::int64_t>(rounded);
  if (g_allocated_bytes + size > g_device_bytes) {
    const std::string what = "emulated cudaMalloc of " + std::to_string(bytes) + " bytes";
    check_failed(what.c_str(), "out of (emulated) device memory", __FILE__, __LINE__);
  }
  void* memory = std::aligned_alloc(alignment, rounded);
  KERNEL_CHECK("allocate", memory != nullptr);
  std::memset(memory, 0xFF, rounded);
  g_allocated_bytes += size;
  return {memory, [size](void* p) {
            if (any_stream_capturing()) {
              check_failed("free of device memory", "not while a graph is being captured", __FILE__,
                           __LINE__);
            }
            drain_all_streams();
            g_allocated_bytes -= size;
            std::free(p);
          }};
}

std::shared_ptr<void> device_runtime::allocate_pinned(std::size_t bytes) {
  impl_->refuse_while_capturing("allocate_pinned");
  const std::size_t rounded = std::max(alignment, (bytes + alignment - 1) / alignment * alignment);
  void* memory = std::aligned_alloc(alignment, rounded);
  KERNEL_CHECK("allocate_pinned", memory != nullptr);
  return {memory, std::free};
}

void device_runtime::copy_to_device(void* dst, const void* src, std::size_t bytes) {
  impl_->refuse_while_capturing("copy_to_device");
  if (bytes == 0) return;
  simt::enqueue(&impl_->stream, [=] { std::memcpy(dst, src, bytes); });
}

void device_runtime::copy_to_host(void* dst, const void* src, std::size_t bytes) {
  impl_->refuse_while_capturing("copy_to_host");
  if (bytes == 0) return;
  simt::enqueue(&impl_->stream, [=] { std::memcpy(dst, src, bytes); });
}

void device_runtime::copy_on_device(void* dst, const void* src, std::size_t bytes) {
  if (bytes == 0) return;
  simt::enqueue(&impl_->stream, [=] { std::memmove(dst, src, bytes); });
}

void device_runtime::fill_zero(void* dst, std::size_t bytes) {
  if (bytes == 0) return;
  simt::enqueue(&impl_->stream, [=] { std::memset(dst, 0, bytes); });
}

void device_runtime::synchronize() {
  impl_->refuse_while_capturing("synchronize");
  simt::drain(&impl_->stream);
}

cudaStream_t device_runtime::stream() const { return &impl_->stream; }

std::unique_ptr<stream_marker> device_runtime::make_marker() {
  return std::make_unique<emulated_marker>(&impl_->stream);
}

void device_runtime::gemm(const tensor& out, const tensor& x, const tensor& weight) {
  simt::enqueue(&impl_->stream, [=] { reference_gemm(out, x, weight); });
}

memory_figures device_runtime::memory() const {
  return {g_device_bytes.load(), g_device_bytes.load() - g_allocated_bytes.load()};
}

std::unique_ptr<captured_ops> device_runtime::capture(const std::function<void()>& ops) {
  impl_->refuse_while_capturing("capture");
  std::vector<std::function<void()>> recorded;
  impl_->stream.capture = &recorded;
  ops();
  impl_->stream.capture = nullptr;
  return std::make_unique<recorded_ops>(std::move(recorded), &impl_->stream);
}

double device_runtime::time_on_stream(const std::function<void()>& ops) {
  synchronize();
  const auto start = std::chrono::steady_clock::now();
  ops();
  synchronize();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace pagedserve::kernels::cuda
