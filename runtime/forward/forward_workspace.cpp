#include "runtime/forward/forward_workspace.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace pagedserve::forward {
namespace {

using kernels::buffer;
using kernels::dtype;
using kernels::tensor;

// The next room: at least what is asked for, and at least double the last (amortised growth
// for callers that never reserve).
std::int64_t grown(std::int64_t current, std::int64_t needed) {
  return needed <= current ? current : std::max(needed, 2 * current);
}

tensor slice(const tensor& all, std::int64_t offset, std::int64_t count) {
  return all.reshape({all.numel()}).rows(offset, count);
}

std::int64_t even(std::int64_t words) { return (words + 1) / 2 * 2; }

// The most extras words a step of up to `max_sequences` sequences brings (one device token
// and a full trailer per sequence, plus alignment).
std::int64_t max_extras_words(std::int64_t max_sequences) {
  return max_sequences * (2 + k_trailer_words_per_sequence) + 2;
}

}  // namespace

extras_offsets extras_of(const step_shape& shape, std::int64_t num_device_tokens,
                         std::int64_t trailer_words) {
  if (num_device_tokens > shape.num_sequences ||
      trailer_words > shape.num_sequences * k_trailer_words_per_sequence) {
    std::fprintf(stderr,
                 "forward_workspace: %lld device tokens and %lld trailer words for a step of %lld "
                 "sequences (at most one and %lld per sequence)\n",
                 static_cast<long long>(num_device_tokens), static_cast<long long>(trailer_words),
                 static_cast<long long>(shape.num_sequences),
                 static_cast<long long>(k_trailer_words_per_sequence));
    std::abort();
  }
  extras_offsets o;
  o.pairs = even(offsets_of(shape).total);
  o.trailer = even(o.pairs + 2 * num_device_tokens);
  o.total = o.trailer + trailer_words;
  return o;
}

forward_workspace::forward_workspace(kernels::backend& backend, const model_config& config)
    : backend_(backend), config_(config) {}

void forward_workspace::reserve(std::int64_t max_tokens, std::int64_t max_sequences,
                                std::int64_t table_width) {
  if (max_tokens <= max_tokens_ && max_sequences <= max_sequences_ && table_width <= table_width_) {
    return;
  }
  if (frozen_) {
    std::fprintf(stderr,
                 "forward_workspace: a step of %lld tokens, %lld sequences and %lld-block "
                 "tables exceeds the room reserved before graph capture (%lld, %lld, %lld)\n",
                 static_cast<long long>(max_tokens), static_cast<long long>(max_sequences),
                 static_cast<long long>(table_width), static_cast<long long>(max_tokens_),
                 static_cast<long long>(max_sequences_), static_cast<long long>(table_width_));
    std::abort();
  }
  backend_.synchronize();  // a step in flight may still read the buffers allocate() frees
  max_tokens_ = grown(max_tokens_, max_tokens);
  max_sequences_ = grown(max_sequences_, max_sequences);
  table_width_ = grown(table_width_, table_width);
  allocate();
}

void forward_workspace::allocate() {
  const std::int64_t n = max_tokens_;
  const std::int64_t s = max_sequences_;
  const dtype act = backend_.compute_type();
  const model_config& c = config_;
  const std::int64_t inputs = even(offsets_of({n, s, table_width_}).total) + max_extras_words(s);
  inputs_ = backend_.allocate(dtype::i32, {inputs});
  hidden_ = backend_.allocate(act, {n, c.hidden_size});
  normed_ = backend_.allocate(act, {n, c.hidden_size});
  q_ = backend_.allocate(act, {n, c.num_heads, c.head_dim});
  k_ = backend_.allocate(act, {n, c.num_kv_heads, c.head_dim});
  v_ = backend_.allocate(act, {n, c.num_kv_heads, c.head_dim});
  attn_ = backend_.allocate(act, {n, c.num_heads, c.head_dim});
  proj_ = backend_.allocate(act, {n, c.hidden_size});
  const std::int64_t mlp = std::max(c.intermediate_size, c.moe.shared_expert_intermediate_size);
  gate_ = backend_.allocate(act, {n, mlp});
  up_ = backend_.allocate(act, {n, mlp});
  last_hidden_ = backend_.allocate(act, {s, c.hidden_size});
  logits_ = backend_.allocate(dtype::f32, {s, c.vocab_size});
  for (auto& slot : staging_) {
    slot = backend_.allocate_host(static_cast<std::size_t>(inputs) * sizeof(std::int32_t));
  }
  staging_ints_ = inputs;
  allocate_moe();
}

void forward_workspace::allocate_moe() {
  const moe_config& moe = config_.moe;
  if (!moe.enabled()) return;
  const std::int64_t n = max_tokens_;
  const kernels::fused_moe_shape shape{n, moe.top_k, moe.num_experts, config_.hidden_size,
                                       moe.expert_intermediate_size};
  router_logits_ = backend_.allocate(dtype::f32, {n, moe.num_experts});
  topk_ids_ = backend_.allocate(dtype::i32, {n, moe.top_k});
  topk_weights_ = backend_.allocate(dtype::f32, {n, moe.top_k});
  moe_scratch_ = backend_.allocate(
      dtype::u8, {std::max<std::int64_t>(backend_.fused_moe_scratch_bytes(shape), 1)});
  if (!moe.has_shared_expert()) return;
  shared_out_ = backend_.allocate(backend_.compute_type(), {n, config_.hidden_size});
  shared_gate_ = backend_.allocate(backend_.compute_type(), {n, 1});
}

step_views forward_workspace::views(const step_shape& shape) const {
  if (shape.num_tokens > max_tokens_ || shape.num_sequences > max_sequences_ ||
      shape.table_width > table_width_) {
    std::fprintf(stderr, "forward_workspace: views of a step larger than the room reserved\n");
    std::abort();
  }
  const std::int64_t n = shape.num_tokens;
  const std::int64_t s = shape.num_sequences;
  const step_offsets o = offsets_of(shape);
  step_views v;
  v.inputs = slice(inputs_.view(), 0, o.total);
  v.token_ids = slice(v.inputs, o.token_ids, n);
  v.positions = slice(v.inputs, o.positions, n);
  v.slot_mapping = slice(v.inputs, o.slot_mapping, n);
  v.query_start = slice(v.inputs, o.query_start, s + 1);
  v.context_lens = slice(v.inputs, o.context_lens, s);
  v.last_rows = slice(v.inputs, o.last_rows, s);
  v.block_tables =
      slice(v.inputs, o.block_tables, s * shape.table_width).reshape({s, shape.table_width});
  v.hidden = hidden_.view().rows(0, n);
  v.normed = normed_.view().rows(0, n);
  v.q = q_.view().rows(0, n);
  v.k = k_.view().rows(0, n);
  v.v = v_.view().rows(0, n);
  v.attn = attn_.view().rows(0, n);
  v.proj = proj_.view().rows(0, n);
  v.gate = gate_.view().rows(0, n);
  v.up = up_.view().rows(0, n);
  if (config_.moe.enabled()) {
    v.router_logits = router_logits_.view().rows(0, n);
    v.topk_ids = topk_ids_.view().rows(0, n);
    v.topk_weights = topk_weights_.view().rows(0, n);
    v.moe_scratch = moe_scratch_.view();  // sized for max_tokens_, enough for any n below
  }
  if (config_.moe.has_shared_expert()) {
    v.shared_out = shared_out_.view().rows(0, n);
    v.shared_gate = shared_gate_.view().rows(0, n);
  }
  v.last_hidden = last_hidden_.view().rows(0, s);
  v.logits = logits_.view().rows(0, s);
  return v;
}

tensor forward_workspace::inputs_range(std::int64_t offset, std::int64_t count) const {
  if (offset < 0 || count < 0 || offset + count > staging_ints_) {
    std::fprintf(stderr, "forward_workspace: inputs beyond the room reserved\n");
    std::abort();
  }
  return slice(inputs_.view(), offset, count);
}

std::span<std::int32_t> forward_workspace::staging(std::size_t slot, std::int64_t words) const {
  if (slot >= k_staging_slots || words > staging_ints_) {
    std::fprintf(stderr, "forward_workspace: staging of a step larger than the room reserved\n");
    std::abort();
  }
  return {static_cast<std::int32_t*>(staging_[slot].get()), static_cast<std::size_t>(words)};
}

std::int64_t forward_workspace::device_bytes() const {
  std::int64_t total = 0;
  for (const buffer* b : {&inputs_, &hidden_, &normed_, &q_, &k_, &v_, &attn_, &proj_, &gate_, &up_,
                          &last_hidden_, &logits_, &router_logits_, &topk_ids_, &topk_weights_,
                          &moe_scratch_, &shared_out_, &shared_gate_}) {
    if (b->empty()) continue;
    total += static_cast<std::int64_t>(b->view().num_bytes());
  }
  return total;
}

}  // namespace pagedserve::forward
