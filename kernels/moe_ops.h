#pragma once
// The mixture-of-experts ops (runtime/model/moe_config.h has the maths). A sparse layer is
//
//   router logits = linear(x, Wr)                      [n, E] f32
//   moe_route:      top_k experts and weights per row   [n, k] i32, [n, k] f32
//   fused_moe:      out = sum_j w[t, j] * expert_{ids[t, j]}(x[t])
//   (qwen2_moe)     sigmoid_gated_add: out += sigmoid(x . w_gate) * shared_expert(x)
//
// fused_moe groups the rows by expert, so each expert's weights are read once per call
// however many rows chose it (a grouped GEMM), and experts no row chose are not read.

#include <cstdint>

#include "kernels/check.h"
#include "kernels/ops.h"

namespace pagedserve::kernels {

// Row e of dim 0 of `t` (a stack of E equal tensors) with that dim dropped; empty stays empty.
[[nodiscard]] inline tensor expert_slice(const tensor& t, std::int64_t e) {
  if (t.empty()) return {};
  tensor one = t.rows(e, 1);
  for (int i = 1; i < one.rank; ++i) {
    one.shape[static_cast<std::size_t>(i - 1)] = one.shape[static_cast<std::size_t>(i)];
  }
  one.shape[static_cast<std::size_t>(--one.rank)] = 0;
  return one;
}

// One projection of E experts, W_e [out_features, in_features], stacked along a leading
// expert dim: dense [E, out, in] in the compute type, or quantized, where `quantized`
// describes one expert (formats of ops.h) and each of its tensors holds E of them:
// codes [E, out, ...], scales [E, ...], zeros [E, ...], input_order [E, in] or empty.
struct expert_weights {
  std::int64_t num_experts = 0;
  tensor dense;
  quantized_weight quantized{};

  [[nodiscard]] bool is_quantized() const { return quantized.is_quantized(); }
  [[nodiscard]] tensor dense_expert(std::int64_t e) const { return expert_slice(dense, e); }
  [[nodiscard]] quantized_weight quantized_expert(std::int64_t e) const {
    quantized_weight w = quantized;
    w.codes = expert_slice(quantized.codes, e);
    w.scales = expert_slice(quantized.scales, e);
    w.zeros = expert_slice(quantized.zeros, e);
    w.input_order = expert_slice(quantized.input_order, e);
    return w;
  }
};

// For each row t: the top_k experts by softmax(router_logits[t]) (ties: the lower index
// first), in descending order, with their probabilities as weights, divided by their sum
// when `renormalize` (which equals a softmax over the top_k logits alone). Adds each
// row's experts to `expert_load` when it is set (the tokens each expert ran, for metrics).
struct moe_route_params {
  tensor topk_ids;       // [n, top_k] i32
  tensor topk_weights;   // [n, top_k] f32
  tensor router_logits;  // [n, E] f32
  bool renormalize = false;
  tensor expert_load;  // [E] i32 holding u32 counters that wrap, or empty
};

// moe_route's sizes, its arguments' types and shapes checked (every backend's first step).
struct moe_route_shape {
  std::int64_t num_tokens = 0;
  std::int64_t num_experts = 0;
  std::int64_t top_k = 0;
};
inline moe_route_shape checked_moe_route_shape(const moe_route_params& p) {
  const char* what = "moe_route";
  KERNEL_CHECK(what, p.router_logits.type == dtype::f32 && p.router_logits.rank == 2);
  KERNEL_CHECK(what, p.topk_ids.type == dtype::i32 && p.topk_weights.type == dtype::f32);
  const moe_route_shape s{p.router_logits.dim(0), p.router_logits.dim(1), p.topk_ids.dim(1)};
  KERNEL_CHECK(what, p.topk_ids.dim(0) == s.num_tokens && s.top_k >= 1 && s.top_k <= s.num_experts);
  KERNEL_CHECK(what, p.topk_weights.numel() == s.num_tokens * s.top_k);
  KERNEL_CHECK(what, p.expert_load.empty() || (p.expert_load.type == dtype::i32 &&
                                               p.expert_load.numel() == s.num_experts));
  return s;
}

// The sizes that bound fused_moe's scratch.
struct fused_moe_shape {
  std::int64_t num_tokens = 0;
  std::int64_t top_k = 0;
  std::int64_t num_experts = 0;
  std::int64_t hidden = 0;
  std::int64_t intermediate = 0;
};

// out[t] = sum_j topk_weights[t, j] * down_e(silu(gate_e x[t]) * up_e x[t]), e = topk_ids[t, j]
// (every id below E: the caller's invariant). out is overwritten; it may not alias x.
struct fused_moe_params {
  tensor out;           // [n, hidden]
  tensor x;             // [n, hidden]
  tensor topk_ids;      // [n, top_k] i32
  tensor topk_weights;  // [n, top_k] f32
  expert_weights gate;  // [E, intermediate, hidden]
  expert_weights up;    // [E, intermediate, hidden]
  expert_weights down;  // [E, hidden, intermediate]
  tensor scratch;       // u8, backend::fused_moe_scratch_bytes(shape) bytes at least
};

// out[t, :] += sigmoid(gate_logits[t]) * x[t, :] (qwen2_moe's gated shared expert).
struct sigmoid_gated_add_params {
  tensor out;          // [n, hidden]
  tensor x;            // [n, hidden]
  tensor gate_logits;  // [n, 1]
};

}  // namespace pagedserve::kernels
