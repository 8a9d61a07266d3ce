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
#include <vector>

#include "kernels/buffer.h"
#include "kernels/check.h"
#include "kernels/moe_ops.h"
#include "kernels/ops.h"

namespace pagedserve::kernels {

struct memory_figures {
  std::int64_t total_bytes = 0;
  std::int64_t free_bytes = 0;  // now, after everything allocated so far
};

// A point in a backend's stream of ops (a CUDA event): record() marks everything issued so
// far; the marker is passed once all of that has run. Made once and recorded again each
// step (no allocation per step). Like a copy, it is not recorded, polled or waited for while
// ops are being captured; it is used only while its backend lives.
class stream_marker {
 public:
  stream_marker() = default;
  stream_marker(const stream_marker&) = delete;
  stream_marker& operator=(const stream_marker&) = delete;
  virtual ~stream_marker() = default;
  virtual void record() = 0;
  // Polls: whether the ops before the last record() have all run (true if never recorded).
  [[nodiscard]] virtual bool passed() = 0;
  // Blocks the host until passed().
  virtual void wait() = 0;
  // Device seconds from `earlier` to this one, both recorded on this backend and passed
  // (negative when this one was recorded first); nullopt where the backend keeps no device
  // clock (the CPU: its ops have run when they return).
  [[nodiscard]] virtual std::optional<double> seconds_since(const stream_marker& earlier) const = 0;
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
  virtual void scatter_tokens(const scatter_tokens_params& p) = 0;

  virtual void synchronize() = 0;

  // A marker on this backend's stream. The default serves backends whose ops have finished
  // when they return (passed() and wait() call synchronize(); no device clock).
  [[nodiscard]] virtual std::unique_ptr<stream_marker> make_marker();

  // Device memory, where the backend owns a fixed pool (nullopt: host memory, no pool).
  [[nodiscard]] virtual std::optional<memory_figures> memory() const { return std::nullopt; }

  // Records the ops `ops` issues instead of running them (nullptr: this backend replays
  // nothing; run the ops eagerly instead). While recording, only ops may be issued: no
  // copies, allocations or synchronize.
  [[nodiscard]] virtual std::unique_ptr<captured_ops> capture(
      const std::function<void()>& /*ops*/) {
    return nullptr;
  }

  // Whether linear() computes with weights stored in `format` (dense always). Where not, the
  // loader dequantizes such weights to the compute type at load.
  [[nodiscard]] virtual bool computes_with(weight_format format) const {
    return format == weight_format::dense;
  }

  // A quantized layer's weight in this backend's memory, in the layout its linear() reads,
  // the buffers appended to `storage` (which keeps the returned views alive); nullopt where
  // this backend does not compute with this layer (the loader dequantizes it instead). The
  // default copies the host layout of kernels/ops.h as it is, for formats computes_with takes.
  [[nodiscard]] virtual std::optional<quantized_weight> upload_quantized(
      const quantized_weight& host, std::vector<buffer>& storage);

  // Mixture-of-experts ops (kernels/moe_ops.h), where runs_moe(): a backend without them
  // cannot load a MoE model (the loader refuses it).
  [[nodiscard]] virtual bool runs_moe() const { return false; }
  virtual void moe_route(const moe_route_params& /*p*/) { KERNEL_CHECK("moe_route", runs_moe()); }
  virtual void fused_moe(const fused_moe_params& /*p*/) { KERNEL_CHECK("fused_moe", runs_moe()); }
  virtual void sigmoid_gated_add(const sigmoid_gated_add_params& /*p*/) {
    KERNEL_CHECK("sigmoid_gated_add", runs_moe());
  }
  // Bytes of fused_moe_params::scratch a call of up to `shape` needs.
  [[nodiscard]] virtual std::int64_t fused_moe_scratch_bytes(
      const fused_moe_shape& /*shape*/) const {
    return 0;
  }
  // Quantized experts (a stack, moe_ops.h) in this backend's memory, as upload_quantized does
  // for one layer; nullopt where fused_moe does not compute with them (the loader dequantizes).
  // The default copies the host layout for formats computes_with takes.
  [[nodiscard]] virtual std::optional<expert_weights> upload_quantized_experts(
      const expert_weights& host, std::vector<buffer>& storage);

  // Whether sample() exists here; otherwise the host samples from copied logits.
  [[nodiscard]] virtual bool samples_on_device() const { return false; }
  virtual void sample(const sample_params& /*p*/) { KERNEL_CHECK("sample", samples_on_device()); }
  // The logits processing that goes with sample() (where samples_on_device()).
  virtual void process_logits(const process_logits_params& /*p*/) {
    KERNEL_CHECK("process_logits", samples_on_device());
  }
  virtual void count_tokens(const count_tokens_params& /*p*/) {
    KERNEL_CHECK("count_tokens", samples_on_device());
  }
  virtual void count_sampled(const count_sampled_params& /*p*/) {
    KERNEL_CHECK("count_sampled", samples_on_device());
  }
};

// The default marker: every check waits for the whole backend (exact for a backend whose ops
// finish as they are issued, merely conservative for others).
class synchronizing_marker final : public stream_marker {
 public:
  explicit synchronizing_marker(backend& owner) : owner_(owner) {}
  void record() override {}
  [[nodiscard]] bool passed() override {
    owner_.synchronize();
    return true;
  }
  void wait() override { owner_.synchronize(); }
  [[nodiscard]] std::optional<double> seconds_since(
      const stream_marker& /*earlier*/) const override {
    return std::nullopt;
  }

 private:
  backend& owner_;
};

inline std::optional<quantized_weight> backend::upload_quantized(const quantized_weight& host,
                                                                 std::vector<buffer>& storage) {
  if (!computes_with(host.format) || host.packing != 0) return std::nullopt;
  const auto copy = [&](const tensor& view) -> tensor {
    if (view.empty()) return {};
    buffer b = allocate(view.type, {view.numel()});
    copy_from_host(b.view(), view.data);
    tensor moved = view;
    moved.data = b.view().data;
    storage.push_back(std::move(b));
    return moved;
  };
  quantized_weight w = host;
  w.codes = copy(host.codes);
  w.scales = copy(host.scales);
  w.zeros = copy(host.zeros);
  w.input_order = copy(host.input_order);
  return w;
}

inline std::optional<expert_weights> backend::upload_quantized_experts(
    const expert_weights& host, std::vector<buffer>& storage) {
  if (!runs_moe()) return std::nullopt;
  std::optional<quantized_weight> stack = backend::upload_quantized(host.quantized, storage);
  if (!stack) return std::nullopt;
  expert_weights w = host;
  w.quantized = *stack;
  return w;
}

inline std::unique_ptr<stream_marker> backend::make_marker() {
  return std::make_unique<synchronizing_marker>(*this);
}

}  // namespace pagedserve::kernels
