#pragma once
// backend: the op interface the model forward is written against, once. Implementations:
// kernels/cpu (fp32 reference) and kernels/cuda. Everything in memory the forward touches
// lives in buffers from `allocate`; the host only reaches it through the copy functions,
// so nothing here assumes that a tensor's data pointer is readable by the host.
// Ops are issued in order; `synchronize` waits until all of them have finished.
//
// Optional capabilities have defaults that say "not here": device memory figures (a CPU has
// no fixed pool to size the KV cache from), graph capture (CUDA graphs) and sampling on the
// device. Callers check and fall back (the forward runs eagerly, the host samples).

#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <string_view>

#include "kernels/buffer.h"
#include "kernels/check.h"
#include "kernels/ops.h"

namespace pagedserve::kernels {

struct memory_figures {
  std::int64_t total_bytes = 0;
  std::int64_t free_bytes = 0;  // now, after everything allocated so far
};

// Ops recorded once and replayed with the same memory and shapes: the buffers they read
// must hold the new step's inputs before each replay (CUDA graphs).
class captured_ops {
 public:
  captured_ops() = default;
  captured_ops(const captured_ops&) = delete;
  captured_ops& operator=(const captured_ops&) = delete;
  virtual ~captured_ops() = default;
  // Enqueues the recorded ops, in order, after everything enqueued before.
  virtual void replay() = 0;
};

class backend {
 public:
  backend() = default;
  backend(const backend&) = delete;
  backend& operator=(const backend&) = delete;
  virtual ~backend() = default;

  [[nodiscard]] virtual std::string_view name() const = 0;
  // The element type this backend keeps weights and activations in.
  [[nodiscard]] virtual dtype compute_type() const = 0;

  // Uninitialised memory of the given shape.
  [[nodiscard]] virtual buffer allocate(dtype type, std::initializer_list<std::int64_t> shape) = 0;
  // Host memory for asynchronous copies (page-locked on CUDA), `bytes` long.
  [[nodiscard]] virtual std::shared_ptr<void> allocate_host(std::size_t bytes) = 0;
  virtual void fill_zero(const tensor& dst) = 0;

  // Host <-> backend copies of raw bytes (dst.num_bytes() / src.num_bytes() bytes) that
  // have completed when they return.
  virtual void copy_from_host(const tensor& dst, const void* src) = 0;
  virtual void copy_to_host(void* dst, const tensor& src) = 0;
  // The same, enqueued: the host memory must stay untouched until synchronize(). They
  // overlap with kernels only from allocate_host memory.
  virtual void copy_from_host_async(const tensor& dst, const void* src) = 0;
  virtual void copy_to_host_async(void* dst, const tensor& src) = 0;
  // dst = src, both backend memory of the same size, enqueued.
  virtual void copy(const tensor& dst, const tensor& src) = 0;
  // Stores fp32 host values into `dst`, converting to dst's element type.
  virtual void upload_f32(const tensor& dst, std::span<const float> src) = 0;

  virtual void embedding(const embedding_params& p) = 0;
  virtual void rms_norm(const rms_norm_params& p) = 0;
  virtual void add_rms_norm(const add_rms_norm_params& p) = 0;
  virtual void linear(const linear_params& p) = 0;
  virtual void rope(const rope_params& p) = 0;
  virtual void kv_write(const kv_write_params& p) = 0;
  virtual void paged_attention(const paged_attention_params& p) = 0;
  virtual void silu_mul(const silu_mul_params& p) = 0;
  virtual void gather_rows(const gather_rows_params& p) = 0;
  virtual void add(const add_params& p) = 0;

  virtual void synchronize() = 0;

  // Device memory, where the backend owns a fixed pool (nullopt: host memory, no pool).
  [[nodiscard]] virtual std::optional<memory_figures> memory() const { return std::nullopt; }

  // Records the ops `ops` issues instead of running them (nullptr: this backend replays
  // nothing; run the ops eagerly instead). While recording, only ops may be issued: no
  // copies, allocations or synchronize.
  [[nodiscard]] virtual std::unique_ptr<captured_ops> capture(
      const std::function<void()>& /*ops*/) {
    return nullptr;
  }

  // Whether sample() exists here; otherwise the host samples from copied logits.
  [[nodiscard]] virtual bool samples_on_device() const { return false; }
  virtual void sample(const sample_params& /*p*/) { KERNEL_CHECK("sample", samples_on_device()); }
};

}  // namespace pagedserve::kernels
