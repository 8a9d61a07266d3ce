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
      workspace_(backend, config_) {}

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
  if (in_flight_) broken("enqueue before the previous step was waited for");
  const batch_metadata meta = build_batch_metadata(batch, cache.layout().block_size);
  check(cache, meta);
  in_flight_ = true;
  if (graphs_ != nullptr && !batch.return_all_logits && graphs_->covers(cache, meta)) {
    last_logits_ = graphs_->enqueue(meta);
    return;
  }
  const step_shape shape = shape_of(meta, std::max<std::int64_t>(meta.max_blocks_per_sequence, 1));
  workspace_.reserve(shape);
  const std::span<std::int32_t> staging = workspace_.staging(shape);
  pack_step_inputs(meta, shape, staging);
  backend_.copy_from_host_async(workspace_.views(shape).inputs, staging.data());
  enqueue_packed(shape, bounds_of(meta), cache);
}

void model_forward::wait() {
  backend_.synchronize();
  in_flight_ = false;
}

forward_output model_forward::run(const forward_batch& batch, paged_kv_cache& cache) {
  enqueue(batch, cache);
  forward_output out;
  out.vocab_size = config_.vocab_size;
  out.last_logits.resize(static_cast<std::size_t>(last_logits_.numel()));
  backend_.copy_to_host_async(out.last_logits.data(), last_logits_);
  buffer every;
  if (batch.return_all_logits) {
    std::int64_t num_tokens = 0;
    for (const sequence_step& s : batch.sequences) {
      num_tokens += static_cast<std::int64_t>(s.new_token_ids.size());
    }
    const step_views v = workspace_.views({num_tokens, 0, 0});
    every = backend_.allocate(dtype::f32, {num_tokens, config_.vocab_size});
    backend_.linear({every.view(), v.normed, weights_.lm_head.view(), {}});
    out.all_logits.resize(static_cast<std::size_t>(every.view().numel()));
    backend_.copy_to_host_async(out.all_logits.data(), every.view());
  }
  wait();
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
  backend_.gather_rows({s.last_hidden, s.normed, s.last_rows});
  backend_.linear({s.logits, s.last_hidden, weights_.lm_head.view(), {}});
  last_logits_ = s.logits;
}

void model_forward::attention_block(const step_views& s, const attention_bounds& bounds,
                                    std::int64_t layer, paged_kv_cache& cache) {
  const layer_weights& w = weights_.layers[static_cast<std::size_t>(layer)];
  const auto eps = static_cast<float>(config_.rms_norm_eps);
  const std::int64_t n = s.hidden.dim(0);
  backend_.linear({s.q, s.normed, w.q_proj.view(), w.q_bias.view()});
  backend_.linear({s.k, s.normed, w.k_proj.view(), w.k_bias.view()});
  backend_.linear({s.v, s.normed, w.v_proj.view(), w.v_bias.view()});
  if (config_.qk_norm) {
    // Per-head norm: the rows of [n * heads, head_dim]; HF applies it before rope.
    const tensor q_rows = s.q.reshape({n * config_.num_heads, config_.head_dim});
    const tensor k_rows = s.k.reshape({n * config_.num_kv_heads, config_.head_dim});
    backend_.rms_norm({q_rows, q_rows, w.q_norm.view(), eps});
    backend_.rms_norm({k_rows, k_rows, w.k_norm.view(), eps});
  }
  backend_.rope({s.q, s.positions, weights_.rope_inv_freq.view()});
  backend_.rope({s.k, s.positions, weights_.rope_inv_freq.view()});
  backend_.kv_write({cache.keys(layer), cache.values(layer), s.k, s.v, s.slot_mapping});
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
  backend_.paged_attention(attention);
  const tensor attn_rows = s.attn.reshape({n, config_.q_size()});
  backend_.linear({s.proj, attn_rows, w.o_proj.view(), w.o_bias.view()});
  backend_.add_rms_norm({s.hidden, s.proj, s.normed, w.post_attention_norm.view(), eps});
}

void model_forward::mlp_block(const step_views& s, std::int64_t layer) {
  const layer_weights& w = weights_.layers[static_cast<std::size_t>(layer)];
  const auto eps = static_cast<float>(config_.rms_norm_eps);
  backend_.linear({s.gate, s.normed, w.gate_proj.view(), w.gate_bias.view()});
  backend_.linear({s.up, s.normed, w.up_proj.view(), w.up_bias.view()});
  backend_.silu_mul({s.gate, s.gate, s.up});
  backend_.linear({s.proj, s.gate, w.down_proj.view(), w.down_bias.view()});
  const bool last = layer + 1 == config_.num_layers;
  const tensor next_norm =
      last ? weights_.final_norm.view()
           : weights_.layers[static_cast<std::size_t>(layer + 1)].input_norm.view();
  backend_.add_rms_norm({s.hidden, s.proj, s.normed, next_norm, eps});
}

std::size_t model_forward::enable_decode_graphs(paged_kv_cache& cache,
                                                const decode_graph_options& options) {
  if (in_flight_) broken("enable_decode_graphs before the previous step was waited for");
  graphs_ = decode_graphs::capture(*this, cache, options);
  return graphs_ == nullptr ? 0 : graphs_->sizes().size();
}

}  // namespace pagedserve::forward
