#pragma once
// backend: the op interface the model forward is written against, once. Implementations:
// kernels/cpu (fp32 reference) and kernels/cuda. Everything in memory the forward touches
// lives in buffers from `allocate`; the host only reaches it through the copy functions,
// so nothing here assumes that a tensor's data pointer is readable by the host.
// Ops are issued in order; `synchronize` waits until all of them have finished.

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string_view>

#include "kernels/buffer.h"
#include "kernels/ops.h"

namespace pagedserve::kernels {

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
  virtual void fill_zero(const tensor& dst) = 0;

  // Host <-> backend copies of raw bytes (dst.num_bytes() / src.num_bytes() bytes).
  virtual void copy_from_host(const tensor& dst, const void* src) = 0;
  virtual void copy_to_host(void* dst, const tensor& src) = 0;
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
};

}  // namespace pagedserve::kernels
