#include "runtime/forward/model_forward.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <utility>

namespace pagedserve::forward {

using kernels::buffer;
using kernels::dtype;
using kernels::tensor;

// Index arrays of the batch and the activations of one call, on the backend.
struct model_forward::step {
  std::int64_t num_tokens = 0;
  buffer token_ids, positions, slot_mapping, query_start, context_lens, block_tables, last_rows;
  std::int32_t max_context_len = 0;
  buffer hidden;  // residual stream [n, hidden]
  buffer normed;  // input of the next projection [n, hidden]
  buffer q, k, v, attn;
  buffer proj;  // o_proj / down_proj output [n, hidden]
  buffer gate, up;
};

namespace {

buffer upload_i32(kernels::backend& be, const std::vector<std::int32_t>& host, std::int64_t rows,
                  std::int64_t cols = 0) {
  buffer b = cols == 0 ? be.allocate(dtype::i32, {rows}) : be.allocate(dtype::i32, {rows, cols});
  be.copy_from_host(b.view(), host.data());
  return b;
}

}  // namespace

model_forward::model_forward(kernels::backend& backend, model_config config, model_weights weights)
    : backend_(backend), config_(std::move(config)), weights_(std::move(weights)) {}

void model_forward::check_cache(const paged_kv_cache& cache) const {
  const kv_cache_layout& l = cache.layout();
  if (l.num_layers != config_.num_layers || l.num_kv_heads != config_.num_kv_heads ||
      l.head_dim != config_.head_dim) {
    std::fprintf(stderr, "model_forward: KV cache layout does not match the model\n");
    std::abort();
  }
}

forward_output model_forward::run(const forward_batch& batch, paged_kv_cache& cache) {
  check_cache(cache);
  const batch_metadata meta = build_batch_metadata(batch, cache.layout().block_size);
  for (std::int32_t id : meta.token_ids) {
    if (id < 0 || id >= config_.vocab_size) {
      std::fprintf(stderr, "model_forward: token id %d outside the vocabulary\n", id);
      std::abort();
    }
  }
  const std::int64_t n = meta.num_tokens;
  const dtype act = backend_.compute_type();
  step s;
  s.num_tokens = n;
  s.token_ids = upload_i32(backend_, meta.token_ids, n);
  s.positions = upload_i32(backend_, meta.positions, n);
  s.slot_mapping = upload_i32(backend_, meta.slot_mapping, n);
  s.query_start = upload_i32(backend_, meta.query_start, meta.num_sequences + 1);
  s.context_lens = upload_i32(backend_, meta.context_lens, meta.num_sequences);
  s.block_tables =
      upload_i32(backend_, meta.block_tables, meta.num_sequences, meta.max_blocks_per_sequence);
  s.last_rows = upload_i32(backend_, meta.last_rows, meta.num_sequences);
  s.max_context_len = meta.max_context_len;
  s.hidden = backend_.allocate(act, {n, config_.hidden_size});
  s.normed = backend_.allocate(act, {n, config_.hidden_size});
  s.q = backend_.allocate(act, {n, config_.num_heads, config_.head_dim});
  s.k = backend_.allocate(act, {n, config_.num_kv_heads, config_.head_dim});
  s.v = backend_.allocate(act, {n, config_.num_kv_heads, config_.head_dim});
  s.attn = backend_.allocate(act, {n, config_.num_heads, config_.head_dim});
  s.proj = backend_.allocate(act, {n, config_.hidden_size});
  s.gate = backend_.allocate(act, {n, config_.intermediate_size});
  s.up = backend_.allocate(act, {n, config_.intermediate_size});

  const auto eps = static_cast<float>(config_.rms_norm_eps);
  backend_.embedding({s.hidden.view(), weights_.embed_tokens.view(), s.token_ids.view()});
  backend_.rms_norm(
      {s.normed.view(), s.hidden.view(), weights_.layers.front().input_norm.view(), eps});
  for (std::int64_t layer = 0; layer < config_.num_layers; ++layer) {
    attention_block(s, layer, cache);
    mlp_block(s, layer);
  }
  return logits(s, meta, batch.return_all_logits);
}

void model_forward::attention_block(const step& s, std::int64_t layer, paged_kv_cache& cache) {
  const layer_weights& w = weights_.layers[static_cast<std::size_t>(layer)];
  const auto eps = static_cast<float>(config_.rms_norm_eps);
  const tensor x = s.normed.view();
  backend_.linear({s.q.view(), x, w.q_proj.view(), w.q_bias.view()});
  backend_.linear({s.k.view(), x, w.k_proj.view(), w.k_bias.view()});
  backend_.linear({s.v.view(), x, w.v_proj.view(), w.v_bias.view()});
  if (config_.qk_norm) {
    // Per-head norm: the rows of [n * heads, head_dim]; HF applies it before rope.
    const tensor q_rows = s.q.view().reshape({s.num_tokens * config_.num_heads, config_.head_dim});
    const tensor k_rows =
        s.k.view().reshape({s.num_tokens * config_.num_kv_heads, config_.head_dim});
    backend_.rms_norm({q_rows, q_rows, w.q_norm.view(), eps});
    backend_.rms_norm({k_rows, k_rows, w.k_norm.view(), eps});
  }
  backend_.rope({s.q.view(), s.positions.view(), weights_.rope_inv_freq.view()});
  backend_.rope({s.k.view(), s.positions.view(), weights_.rope_inv_freq.view()});
  backend_.kv_write(
      {cache.keys(layer), cache.values(layer), s.k.view(), s.v.view(), s.slot_mapping.view()});
  kernels::paged_attention_params attention;
  attention.out = s.attn.view();
  attention.query = s.q.view();
  attention.key_cache = cache.keys(layer);
  attention.value_cache = cache.values(layer);
  attention.query_start = s.query_start.view();
  attention.context_lens = s.context_lens.view();
  attention.block_tables = s.block_tables.view();
  attention.scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(config_.head_dim)));
  attention.max_context_len = s.max_context_len;
  backend_.paged_attention(attention);
  const tensor attn_rows = s.attn.view().reshape({s.num_tokens, config_.q_size()});
  backend_.linear({s.proj.view(), attn_rows, w.o_proj.view(), w.o_bias.view()});
  backend_.add_rms_norm(
      {s.hidden.view(), s.proj.view(), s.normed.view(), w.post_attention_norm.view(), eps});
}

void model_forward::mlp_block(const step& s, std::int64_t layer) {
  const layer_weights& w = weights_.layers[static_cast<std::size_t>(layer)];
  const auto eps = static_cast<float>(config_.rms_norm_eps);
  backend_.linear({s.gate.view(), s.normed.view(), w.gate_proj.view(), w.gate_bias.view()});
  backend_.linear({s.up.view(), s.normed.view(), w.up_proj.view(), w.up_bias.view()});
  backend_.silu_mul({s.gate.view(), s.gate.view(), s.up.view()});
  backend_.linear({s.proj.view(), s.gate.view(), w.down_proj.view(), w.down_bias.view()});
  const bool last = layer + 1 == config_.num_layers;
  const tensor next_norm =
      last ? weights_.final_norm.view()
           : weights_.layers[static_cast<std::size_t>(layer + 1)].input_norm.view();
  backend_.add_rms_norm({s.hidden.view(), s.proj.view(), s.normed.view(), next_norm, eps});
}

forward_output model_forward::logits(const step& s, const batch_metadata& meta, bool all_rows) {
  forward_output out;
  out.vocab_size = config_.vocab_size;
  const dtype act = backend_.compute_type();
  buffer last = backend_.allocate(act, {meta.num_sequences, config_.hidden_size});
  backend_.gather_rows({last.view(), s.normed.view(), s.last_rows.view()});
  buffer last_logits = backend_.allocate(dtype::f32, {meta.num_sequences, config_.vocab_size});
  backend_.linear({last_logits.view(), last.view(), weights_.lm_head.view(), {}});
  out.last_logits.resize(static_cast<std::size_t>(last_logits.view().numel()));
  if (all_rows) {
    buffer every = backend_.allocate(dtype::f32, {s.num_tokens, config_.vocab_size});
    backend_.linear({every.view(), s.normed.view(), weights_.lm_head.view(), {}});
    out.all_logits.resize(static_cast<std::size_t>(every.view().numel()));
    backend_.synchronize();
    backend_.copy_to_host(out.all_logits.data(), every.view());
  }
  backend_.synchronize();
  backend_.copy_to_host(out.last_logits.data(), last_logits.view());
  return out;
}

}  // namespace pagedserve::forward
