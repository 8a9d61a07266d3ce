#include "kernels/cpu/moe_op.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <vector>

#include "kernels/check.h"
#include "kernels/cpu/cpu_ops.h"

namespace pagedserve::kernels::cpu {
namespace {

constexpr std::int64_t k_align = 64;

std::int64_t aligned(std::int64_t bytes) { return (bytes + k_align - 1) / k_align * k_align; }

// fused_moe's scratch, carved in this order: expert offsets, rows sorted by expert, then the
// gathered inputs, gate, up and down outputs of every routed row (f32).
struct scratch_layout {
  std::int64_t offsets = 0, order = 0, x = 0, gate = 0, up = 0, y = 0, total = 0;
};

scratch_layout layout_of(const fused_moe_shape& s) {
  const std::int64_t rows = s.num_tokens * s.top_k;
  scratch_layout l;
  l.order = aligned((s.num_experts + 1) * 4);
  l.x = l.order + aligned(rows * 4);
  l.gate = l.x + aligned(rows * s.hidden * 4);
  l.up = l.gate + aligned(rows * s.intermediate * 4);
  l.y = l.up + aligned(rows * s.intermediate * 4);
  l.total = l.y + aligned(rows * s.hidden * 4);
  return l;
}

std::int64_t out_features(const expert_weights& w) {
  return w.is_quantized() ? w.quantized.out_features : w.dense.dim(1);
}

// Expert e's linear: out = x W_e^T.
linear_params expert_linear(const expert_weights& w, std::int64_t e, const tensor& out,
                            const tensor& x) {
  linear_params p;
  p.out = out;
  p.x = x;
  if (w.is_quantized()) {
    p.quantized = w.quantized_expert(e);
  } else {
    p.weight = w.dense_expert(e);
  }
  return p;
}

// offsets[e] .. offsets[e + 1]: the routed rows (t * top_k + j) of expert e, in `order`.
void sort_by_expert(const std::int32_t* ids, std::int64_t rows, std::int64_t num_experts,
                    std::int32_t* offsets, std::int32_t* order) {
  std::fill(offsets, offsets + num_experts + 1, 0);
  for (std::int64_t r = 0; r < rows; ++r) {
    KERNEL_CHECK("fused_moe", ids[r] >= 0 && ids[r] < num_experts);
    ++offsets[ids[r] + 1];
  }
  std::partial_sum(offsets, offsets + num_experts + 1, offsets);
  std::vector<std::int32_t> next(offsets, offsets + num_experts);
  for (std::int64_t r = 0; r < rows; ++r) order[next[ids[r]]++] = static_cast<std::int32_t>(r);
}

}  // namespace

void moe_route(const moe_route_params& p) {
  const moe_route_shape shape = checked_moe_route_shape(p);
  const std::int64_t n = shape.num_tokens;
  const std::int64_t experts = shape.num_experts;
  const std::int64_t k = shape.top_k;
  std::vector<std::int32_t> index(static_cast<std::size_t>(experts));
  for (std::int64_t t = 0; t < n; ++t) {
    const float* logits = p.router_logits.as<const float>() + t * experts;
    const float max = *std::max_element(logits, logits + experts);
    float sum = 0.0F;
    for (std::int64_t e = 0; e < experts; ++e) sum += std::exp(logits[e] - max);
    std::iota(index.begin(), index.end(), 0);
    std::partial_sort(index.begin(), index.begin() + k, index.end(),
                      [&](std::int32_t a, std::int32_t b) {
                        return logits[a] > logits[b] || (logits[a] == logits[b] && a < b);
                      });
    std::int32_t* ids = p.topk_ids.as<std::int32_t>() + t * k;
    float* weights = p.topk_weights.as<float>() + t * k;
    float kept = 0.0F;
    for (std::int64_t j = 0; j < k; ++j) {
      ids[j] = index[static_cast<std::size_t>(j)];
      weights[j] = std::exp(logits[ids[j]] - max) / sum;
      kept += weights[j];
    }
    if (p.renormalize) {
      for (std::int64_t j = 0; j < k; ++j) weights[j] /= kept;
    }
    if (!p.expert_load.empty()) {
      // u32 counters that wrap (the engine adds their growth modulo 2^32): no signed overflow.
      for (std::int64_t j = 0; j < k; ++j) ++p.expert_load.as<std::uint32_t>()[ids[j]];
    }
  }
}

std::int64_t fused_moe_scratch_bytes(const fused_moe_shape& shape) {
  return layout_of(shape).total;
}

void fused_moe(const fused_moe_params& p, const std::function<void(const linear_params&)>& linear) {
  const char* what = "fused_moe";
  KERNEL_CHECK(what, p.x.type == dtype::f32 && p.out.type == dtype::f32 && p.x.rank == 2);
  KERNEL_CHECK(what, p.topk_ids.type == dtype::i32 && p.topk_weights.type == dtype::f32);
  const std::int64_t n = p.x.dim(0);
  const std::int64_t hidden = p.x.dim(1);
  const std::int64_t k = p.topk_ids.dim(1);
  const std::int64_t experts = p.gate.num_experts;
  const std::int64_t inter = out_features(p.gate);
  KERNEL_CHECK(what, p.out.numel() == n * hidden && p.topk_ids.numel() == n * k);
  KERNEL_CHECK(what, p.up.num_experts == experts && p.down.num_experts == experts);
  KERNEL_CHECK(what, out_features(p.up) == inter && out_features(p.down) == hidden);
  const scratch_layout l = layout_of({n, k, experts, hidden, inter});
  KERNEL_CHECK(what, p.scratch.type == dtype::u8 && p.scratch.numel() >= l.total);
  auto* base = p.scratch.as<std::byte>();
  auto* offsets = reinterpret_cast<std::int32_t*>(base);
  auto* order = reinterpret_cast<std::int32_t*>(base + l.order);
  auto* xs = reinterpret_cast<float*>(base + l.x);
  auto* gate = reinterpret_cast<float*>(base + l.gate);
  auto* up = reinterpret_cast<float*>(base + l.up);
  auto* ys = reinterpret_cast<float*>(base + l.y);
  sort_by_expert(p.topk_ids.as<const std::int32_t>(), n * k, experts, offsets, order);

  const float* x = p.x.as<const float>();
  const float* weights = p.topk_weights.as<const float>();
  float* out = p.out.as<float>();
  std::fill(out, out + n * hidden, 0.0F);
  for (std::int64_t e = 0; e < experts; ++e) {
    const std::int64_t first = offsets[e];
    const std::int64_t count = offsets[e + 1] - first;
    if (count == 0) continue;  // no row chose it: its weights are not read
    for (std::int64_t i = 0; i < count; ++i) {
      std::memcpy(xs + i * hidden, x + (order[first + i] / k) * hidden,
                  static_cast<std::size_t>(hidden) * sizeof(float));
    }
    const tensor x_rows = tensor::make(xs, dtype::f32, {count, hidden});
    const tensor gate_rows = tensor::make(gate, dtype::f32, {count, inter});
    const tensor up_rows = tensor::make(up, dtype::f32, {count, inter});
    const tensor y_rows = tensor::make(ys, dtype::f32, {count, hidden});
    linear(expert_linear(p.gate, e, gate_rows, x_rows));
    linear(expert_linear(p.up, e, up_rows, x_rows));
    silu_mul({gate_rows, gate_rows, up_rows});
    linear(expert_linear(p.down, e, y_rows, gate_rows));
    for (std::int64_t i = 0; i < count; ++i) {
      const std::int32_t row = order[first + i];
      const float w = weights[row];
      float* dst = out + (row / k) * hidden;
      const float* y = ys + i * hidden;
      for (std::int64_t h = 0; h < hidden; ++h) dst[h] += w * y[h];
    }
  }
}

void sigmoid_gated_add(const sigmoid_gated_add_params& p) {
  const char* what = "sigmoid_gated_add";
  KERNEL_CHECK(
      what, p.out.type == dtype::f32 && p.x.type == dtype::f32 && p.gate_logits.type == dtype::f32);
  const std::int64_t n = p.gate_logits.numel();
  KERNEL_CHECK(what, n > 0 && p.out.numel() == p.x.numel() && p.x.numel() % n == 0);
  const std::int64_t width = p.x.numel() / n;
  for (std::int64_t t = 0; t < n; ++t) {
    const float g = 1.0F / (1.0F + std::exp(-p.gate_logits.as<const float>()[t]));
    const float* x = p.x.as<const float>() + t * width;
    float* out = p.out.as<float>() + t * width;
    for (std::int64_t h = 0; h < width; ++h) out[h] += g * x[h];
  }
}

}  // namespace pagedserve::kernels::cpu
