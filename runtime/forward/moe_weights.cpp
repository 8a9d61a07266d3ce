#include "runtime/forward/moe_weights.h"

#include <string>

#include "runtime/model/moe_weight_names.h"
#include "runtime/quant/quantized_linear.h"

namespace pagedserve::forward {
namespace {

using kernels::dtype;
using kernels::tensor;

std::int64_t bytes_of(const kernels::buffer& b) {
  return b.empty() ? 0 : static_cast<std::int64_t>(b.view().num_bytes());
}

// E quantized experts' host tensors back to back, and the stack's views of them.
struct host_stack {
  std::vector<std::uint8_t> codes, zeros;
  std::vector<float> scales;
  std::vector<std::int32_t> input_order;
  kernels::expert_weights view;
};

// Whether one stack can hold every expert: the same format, group shape and tensor sizes.
bool stackable(const std::vector<const quant::quantized_linear*>& experts) {
  const quant::quantized_linear& first = *experts.front();
  for (const quant::quantized_linear* q : experts) {
    if (q == nullptr || q->format != first.format || q->group_size != first.group_size ||
        q->block_rows != first.block_rows || q->fp8_activations != first.fp8_activations ||
        q->codes.size() != first.codes.size() || q->scales.size() != first.scales.size() ||
        q->zeros.size() != first.zeros.size()) {
      return false;
    }
  }
  return true;
}

void stack_host(const std::vector<const quant::quantized_linear*>& experts, host_stack& out) {
  bool any_order = false;
  for (const quant::quantized_linear* q : experts) any_order |= !q->input_order.empty();
  for (const quant::quantized_linear* q : experts) {
    out.codes.insert(out.codes.end(), q->codes.begin(), q->codes.end());
    out.scales.insert(out.scales.end(), q->scales.begin(), q->scales.end());
    out.zeros.insert(out.zeros.end(), q->zeros.begin(), q->zeros.end());
    if (!any_order) continue;
    if (q->input_order.empty()) {
      for (std::int32_t k = 0; k < static_cast<std::int32_t>(q->in_features); ++k) {
        out.input_order.push_back(k);  // in input order: the identity permutation
      }
    } else {
      out.input_order.insert(out.input_order.end(), q->input_order.begin(), q->input_order.end());
    }
  }
  const quant::quantized_linear& first = *experts.front();
  const kernels::quantized_weight one = first.host_view();
  const auto e = static_cast<std::int64_t>(experts.size());
  kernels::expert_weights& v = out.view;
  v.num_experts = e;
  v.quantized = one;
  v.quantized.codes =
      tensor::make(out.codes.data(), dtype::u8, {e, one.codes.dim(0), one.codes.dim(1)});
  v.quantized.scales =
      tensor::make(out.scales.data(), dtype::f32, {e, one.scales.dim(0), one.scales.dim(1)});
  v.quantized.zeros = out.zeros.empty() ? tensor{}
                                        : tensor::make(out.zeros.data(), dtype::u8,
                                                       {e, one.zeros.dim(0), one.zeros.dim(1)});
  v.quantized.input_order =
      any_order ? tensor::make(out.input_order.data(), dtype::i32, {e, first.in_features})
                : tensor{};
}

// Every expert in the compute type, quantized ones dequantized on the host.
expert_stack dense_stack(weight_uploader& up, const std::vector<std::string>& names,
                         const std::vector<const quant::quantized_linear*>& quantized,
                         std::int64_t rows, std::int64_t cols) {
  const auto e = static_cast<std::int64_t>(names.size());
  expert_stack s;
  s.dense = up.backend().allocate(up.backend().compute_type(), {e, rows, cols});
  for (std::int64_t i = 0; i < e; ++i) {
    const tensor slice = kernels::expert_slice(s.dense.view(), i);
    const quant::quantized_linear* q = quantized[static_cast<std::size_t>(i)];
    if (q == nullptr) {
      if (!up.store(slice, names[static_cast<std::size_t>(i)], rows, cols)) return {};
      continue;
    }
    up.backend().upload_f32(slice, quant::dequantize(*q));
    up.count_dequantized(1);
  }
  s.weights.num_experts = e;
  s.weights.dense = s.dense.view();
  return s;
}

expert_stack take_experts(weight_uploader& up, const model_config& c, std::int64_t layer,
                          expert_projection projection, std::int64_t rows, std::int64_t cols) {
  std::vector<std::string> names;
  std::vector<const quant::quantized_linear*> quantized;
  std::int64_t num_quantized = 0;
  for (std::int64_t e = 0; e < c.moe.num_experts; ++e) {
    names.push_back(expert_tensor_name(c, layer, e, projection));
    quantized.push_back(up.find_quantized(names.back(), rows, cols));
    num_quantized += quantized.back() != nullptr ? 1 : 0;
  }
  if (up.failed()) return {};
  const bool all_quantized = num_quantized == c.moe.num_experts;
  if (all_quantized && stackable(quantized) &&
      up.backend().computes_with(quantized.front()->format)) {
    host_stack host;
    stack_host(quantized, host);
    expert_stack s;
    if (std::optional<kernels::expert_weights> w =
            up.backend().upload_quantized_experts(host.view, s.storage)) {
      s.weights = *w;
      up.count_kept(c.moe.num_experts);
      return s;
    }
  }
  return dense_stack(up, names, quantized, rows, cols);
}

}  // namespace

std::int64_t expert_stack::num_bytes() const {
  std::int64_t bytes = bytes_of(dense);
  for (const kernels::buffer& b : storage) bytes += bytes_of(b);
  return bytes;
}

std::int64_t moe_layer_weights::num_bytes() const {
  return bytes_of(router) + gate.num_bytes() + up.num_bytes() + down.num_bytes() +
         shared_gate_proj.num_bytes() + shared_up_proj.num_bytes() + shared_down_proj.num_bytes() +
         bytes_of(shared_expert_gate);
}

moe_layer_weights take_moe_layer(weight_uploader& up, const model_config& c, std::int64_t layer) {
  const std::int64_t hidden = c.hidden_size;
  const moe_config& moe = c.moe;
  const std::int64_t inter = moe.expert_intermediate_size;
  moe_layer_weights w;
  w.router = up.take(router_tensor_name(c, layer), moe.num_experts, hidden);
  w.gate = take_experts(up, c, layer, expert_projection::gate, inter, hidden);
  w.up = take_experts(up, c, layer, expert_projection::up, inter, hidden);
  w.down = take_experts(up, c, layer, expert_projection::down, hidden, inter);
  if (!moe.has_shared_expert()) return w;
  const std::int64_t shared = moe.shared_expert_intermediate_size;
  auto name = [layer](expert_projection p) { return shared_expert_tensor_name(layer, p); };
  w.shared_gate_proj = up.take_linear(name(expert_projection::gate), shared, hidden);
  w.shared_up_proj = up.take_linear(name(expert_projection::up), shared, hidden);
  w.shared_down_proj = up.take_linear(name(expert_projection::down), hidden, shared);
  w.shared_expert_gate = up.take(shared_expert_gate_tensor_name(layer), 1, hidden);
  return w;
}

}  // namespace pagedserve::forward
