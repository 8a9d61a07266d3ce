#include "runtime/forward/model_forward.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <utility>

#include "runtime/forward/decode_graphs.h"

namespace pagedserve::forward {

using kernels::buffer;
using kernels::dtype;
using kernels::tensor;

namespace {

[[noreturn]] void broken(const char* what) {
  std::fprintf(stderr, "model_forward: %s\n", what);
  std::abort();
}

attention_bounds bounds_of(const batch_metadata& meta) {
  attention_bounds b;
  b.max_context_len = meta.max_context_len;
  for (std::int64_t s = 0; s < meta.num_sequences; ++s) {
    const auto i = static_cast<std::size_t>(s);
    b.max_query_len = std::max(b.max_query_len, meta.query_start[i + 1] - meta.query_start[i]);
  }
  return b;
}

}  // namespace

model_forward::model_forward(kernels::backend& backend, model_config config, model_weights weights)
    : backend_(backend),
      config_(std::move(config)),
      weights_(std::move(weights)),
      workspace_(backend, config_) {
  if (config_.moe.enabled()) {
    expert_load_ = backend_.allocate(dtype::i32, {config_.num_layers, config_.moe.num_experts});
    backend_.fill_zero(expert_load_.view());
    for (auto& copy : expert_load_host_) {
      copy = backend_.allocate_host(expert_load_.view().num_bytes());
      std::fill_n(static_cast<std::int32_t*>(copy.get()), expert_load_.view().numel(), 0);
    }
  }
}

model_forward::~model_forward() = default;

void model_forward::check(const paged_kv_cache& cache, const batch_metadata& meta) const {
  const kv_cache_layout& l = cache.layout();
  if (l.num_layers != config_.num_layers || l.num_kv_heads != config_.num_kv_heads ||
      l.head_dim != config_.head_dim) {
    broken("KV cache layout does not match the model");
  }
  for (std::int32_t id : meta.token_ids) {
    if (id < 0 || id >= config_.vocab_size) {
      std::fprintf(stderr, "model_forward: token id %d outside the vocabulary\n", id);
      std::abort();
    }
  }
}

void model_forward::enqueue(const forward_batch& batch, paged_kv_cache& cache) {
  const batch_metadata meta = build_batch_metadata(batch, cache.layout().block_size);
  check(cache, meta);
  if (!batch.device_tokens.empty() && batch.token_source.numel() == 0) {
    broken("device tokens without a token source");
  }
  last_num_tokens_ = meta.num_tokens;
  skip_last_logits_ = batch.return_all_logits && batch.only_all_logits;
  last_replayed_graph_ = graphs_ != nullptr && !batch.return_all_logits && !batch.eager &&
                         graphs_->covers(cache, meta);
  if (last_replayed_graph_) {
    last_logits_ = graphs_->enqueue(meta, batch);
  } else {
    const step_shape shape =
        shape_of(meta, std::max<std::int64_t>(meta.max_blocks_per_sequence, 1));
    workspace_.reserve(shape);
    send_inputs(meta, shape, batch);
    enqueue_packed(shape, bounds_of(meta), cache);
  }
  copy_expert_load();
}

// Enqueued after each forward (outside any graph): a few KB, so metrics read the experts'
// load with the step's results instead of waiting for the device.
void model_forward::copy_expert_load() {
  if (expert_load_.empty()) return;
  last_expert_load_slot_ = (last_expert_load_slot_ + 1) % k_staging_slots;
  backend_.copy_to_host_async(expert_load_host_[last_expert_load_slot_].get(), expert_load_.view());
}

std::span<const std::int32_t> model_forward::expert_load_copy(std::size_t slot) const {
  if (expert_load_.empty() || slot >= k_staging_slots) return {};
  return {static_cast<const std::int32_t*>(expert_load_host_[slot].get()),
          static_cast<std::size_t>(expert_load_.view().numel())};
}

step_views model_forward::send_inputs(const batch_metadata& meta, const step_shape& shape,
                                      const forward_batch& batch) {
  const auto num_device_tokens = static_cast<std::int64_t>(batch.device_tokens.size());
  const auto trailer_words = static_cast<std::int64_t>(batch.trailer.size());
  const extras_offsets o = extras_of(shape, num_device_tokens, trailer_words);
  const std::size_t slot = next_slot_;
  next_slot_ = (next_slot_ + 1) % k_staging_slots;
  std::unique_ptr<kernels::stream_marker>& sent = staging_sent_[slot];
  if (sent == nullptr) {
    sent = backend_.make_marker();
  } else {
    sent->wait();  // the copy out of this slot, two steps ago
  }
  const std::span<std::int32_t> staging = workspace_.staging(slot, o.total);
  pack_step_inputs(meta, shape, staging.first(static_cast<std::size_t>(offsets_of(shape).total)));
  for (std::int64_t i = 0; i < num_device_tokens; ++i) {
    const device_token& d = batch.device_tokens[static_cast<std::size_t>(i)];
    if (d.token_row < 0 || d.token_row >= meta.num_tokens) broken("device token row out of range");
    staging[static_cast<std::size_t>(o.pairs + 2 * i)] = d.token_row;
    staging[static_cast<std::size_t>(o.pairs + 2 * i + 1)] = d.source_row;
  }
  std::copy(batch.trailer.begin(), batch.trailer.end(),
            staging.begin() + static_cast<std::ptrdiff_t>(o.trailer));
  backend_.copy_from_host_async(workspace_.inputs_range(0, o.total), staging.data());
  sent->record();
  const step_views views = workspace_.views(shape);
  if (num_device_tokens > 0) {
    backend_.scatter_tokens(
        {views.token_ids, batch.token_source,
         workspace_.inputs_range(o.pairs, 2 * num_device_tokens).reshape({num_device_tokens, 2})});
  }
  last_trailer_ = workspace_.inputs_range(o.trailer, trailer_words);
  return views;
}

void model_forward::wait() { backend_.synchronize(); }

std::vector<std::int32_t> model_forward::expert_load() {
  if (expert_load_.empty()) return {};
  std::vector<std::int32_t> load(static_cast<std::size_t>(expert_load_.view().numel()));
  backend_.synchronize();
  backend_.copy_to_host(load.data(), expert_load_.view());
  return load;
}

forward_output model_forward::run(const forward_batch& batch, paged_kv_cache& cache) {
  enqueue(batch, cache);
  forward_output out;
  out.vocab_size = config_.vocab_size;
  if (!skip_last_logits_) {
    out.last_logits.resize(static_cast<std::size_t>(last_logits_.numel()));
    backend_.copy_to_host_async(out.last_logits.data(), last_logits_);
  }
  buffer every;
  if (batch.return_all_logits) {
    std::int64_t num_tokens = 0;
    for (const sequence_step& s : batch.sequences) {
      num_tokens += static_cast<std::int64_t>(s.new_token_ids.size());
    }
    const step_views v = workspace_.views({num_tokens, 0, 0});
    every = backend_.allocate(dtype::f32, {num_tokens, config_.vocab_size});
    backend_.linear(weights_.lm_head.params(every.view(), v.normed, {}));
    out.all_logits.resize(static_cast<std::size_t>(every.view().numel()));
    backend_.copy_to_host_async(out.all_logits.data(), every.view());
  }
  wait();
  if (skip_last_logits_) {  // each sequence's last row, out of every row's logits
    const auto vocab = static_cast<std::size_t>(config_.vocab_size);
    std::size_t end = 0;
    for (const sequence_step& s : batch.sequences) {
      end += s.new_token_ids.size();
      const auto row = out.all_logits.begin() + static_cast<std::ptrdiff_t>((end - 1) * vocab);
      out.last_logits.insert(out.last_logits.end(), row, row + static_cast<std::ptrdiff_t>(vocab));
    }
  }
  return out;
}

void model_forward::enqueue_packed(const step_shape& shape, const attention_bounds& bounds,
                                   paged_kv_cache& cache) {
  const step_views s = workspace_.views(shape);
  const auto eps = static_cast<float>(config_.rms_norm_eps);
  backend_.embedding({s.hidden, weights_.embed_tokens.view(), s.token_ids});
  backend_.rms_norm({s.normed, s.hidden, weights_.layers.front().input_norm.view(), eps});
  for (std::int64_t layer = 0; layer < config_.num_layers; ++layer) {
    attention_block(s, bounds, layer, cache);
    mlp_block(s, layer);
  }
  if (skip_last_logits_) return;  // run() takes them from every row's logits
  backend_.gather_rows({s.last_hidden, s.normed, s.last_rows});
  backend_.linear(weights_.lm_head.params(s.logits, s.last_hidden, {}));
  last_logits_ = s.logits;
}

void model_forward::attention_block(const step_views& s, const attention_bounds& bounds,
                                    std::int64_t layer, paged_kv_cache& cache) {
  const layer_weights& w = weights_.layers[static_cast<std::size_t>(layer)];
  const auto eps = static_cast<float>(config_.rms_norm_eps);
  const std::int64_t n = s.hidden.dim(0);
  backend_.linear(w.q_proj.params(s.q, s.normed, w.q_bias.view()));
  backend_.linear(w.k_proj.params(s.k, s.normed, w.k_bias.view()));
  backend_.linear(w.v_proj.params(s.v, s.normed, w.v_bias.view()));
  if (config_.qk_norm) {
    // Per-head norm: the rows of [n * heads, head_dim]; HF applies it before rope.
    const tensor q_rows = s.q.reshape({n * config_.num_heads, config_.head_dim});
    const tensor k_rows = s.k.reshape({n * config_.num_kv_heads, config_.head_dim});
    backend_.rms_norm({q_rows, q_rows, w.q_norm.view(), eps});
    backend_.rms_norm({k_rows, k_rows, w.k_norm.view(), eps});
  }
  backend_.rope({s.q, s.positions, weights_.rope_inv_freq.view()});
  backend_.rope({s.k, s.positions, weights_.rope_inv_freq.view()});
  const float k_scale = weights_.k_scales[static_cast<std::size_t>(layer)];
  const float v_scale = weights_.v_scales[static_cast<std::size_t>(layer)];
  backend_.kv_write(
      {cache.keys(layer), cache.values(layer), s.k, s.v, s.slot_mapping, k_scale, v_scale});
  kernels::paged_attention_params attention;
  attention.out = s.attn;
  attention.query = s.q;
  attention.key_cache = cache.keys(layer);
  attention.value_cache = cache.values(layer);
  attention.query_start = s.query_start;
  attention.context_lens = s.context_lens;
  attention.block_tables = s.block_tables;
  attention.scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(config_.head_dim)));
  attention.max_context_len = bounds.max_context_len;
  attention.max_query_len = bounds.max_query_len;
  attention.key_scale = k_scale;
  attention.value_scale = v_scale;
  backend_.paged_attention(attention);
  const tensor attn_rows = s.attn.reshape({n, config_.q_size()});
  backend_.linear(w.o_proj.params(s.proj, attn_rows, w.o_bias.view()));
  backend_.add_rms_norm({s.hidden, s.proj, s.normed, w.post_attention_norm.view(), eps});
}

void model_forward::mlp_block(const step_views& s, std::int64_t layer) {
  const layer_weights& w = weights_.layers[static_cast<std::size_t>(layer)];
  const auto eps = static_cast<float>(config_.rms_norm_eps);
  if (config_.moe.is_sparse_layer(layer)) {
    sparse_mlp(s, layer);
  } else {
    backend_.linear(w.gate_proj.params(s.gate, s.normed, w.gate_bias.view()));
    backend_.linear(w.up_proj.params(s.up, s.normed, w.up_bias.view()));
    backend_.silu_mul({s.gate, s.gate, s.up});
    backend_.linear(w.down_proj.params(s.proj, s.gate, w.down_bias.view()));
  }
  const bool last = layer + 1 == config_.num_layers;
  const tensor next_norm =
      last ? weights_.final_norm.view()
           : weights_.layers[static_cast<std::size_t>(layer + 1)].input_norm.view();
  backend_.add_rms_norm({s.hidden, s.proj, s.normed, next_norm, eps});
}

// s.proj = the routed experts' weighted sum (+ the gated shared expert): moe_ops.h.
void model_forward::sparse_mlp(const step_views& s, std::int64_t layer) {
  const moe_layer_weights& w = weights_.layers[static_cast<std::size_t>(layer)].moe;
  const moe_config& moe = config_.moe;
  backend_.linear({s.router_logits, s.normed, w.router.view(), {}});
  const std::int64_t e = moe.num_experts;
  backend_.moe_route({s.topk_ids, s.topk_weights, s.router_logits, moe.renormalize,
                      expert_load_.view().rows(layer, 1).reshape({e})});
  backend_.fused_moe({s.proj, s.normed, s.topk_ids, s.topk_weights, w.gate.weights, w.up.weights,
                      w.down.weights, s.moe_scratch});
  if (!moe.has_shared_expert()) return;
  const std::int64_t n = s.normed.dim(0);
  const std::int64_t shared = moe.shared_expert_intermediate_size;
  const tensor gate = s.gate.reshape({s.gate.numel()}).rows(0, n * shared).reshape({n, shared});
  const tensor up = s.up.reshape({s.up.numel()}).rows(0, n * shared).reshape({n, shared});
  backend_.linear(w.shared_gate_proj.params(gate, s.normed, {}));
  backend_.linear(w.shared_up_proj.params(up, s.normed, {}));
  backend_.silu_mul({gate, gate, up});
  backend_.linear(w.shared_down_proj.params(s.shared_out, gate, {}));
  backend_.linear({s.shared_gate, s.normed, w.shared_expert_gate.view(), {}});
  backend_.sigmoid_gated_add({s.proj, s.shared_out, s.shared_gate});
}

std::size_t model_forward::enable_decode_graphs(paged_kv_cache& cache,
                                                const decode_graph_options& options) {
  backend_.synchronize();
  graphs_ = decode_graphs::capture(*this, cache, options);
  return graphs_ == nullptr ? 0 : graphs_->sizes().size();
}

}  // namespace pagedserve::forward
