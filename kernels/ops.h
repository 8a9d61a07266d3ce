#pragma once
// Parameters of every op of the backend interface. Tensors are views of memory owned by
// the backend that runs the op; shapes are checked by the backend. "n" is the number of
// tokens of the flattened batch; index tensors (ids, positions, slots, tables) are i32.

#include <cstdint>

#include "kernels/tensor.h"

namespace pagedserve::kernels {

// out[n, hidden] = table[ids[i], :]
struct embedding_params {
  tensor out;
  tensor table;  // [vocab, hidden]
  tensor ids;    // [n] i32
};

// out[r, :] = x[r, :] / sqrt(mean(x[r, :]^2) + eps) * weight, over rows of length
// weight.numel(). A per-head norm (qwen3 q_norm / k_norm) is the same op on a view of
// shape [n * heads, head_dim]. out may alias x.
struct rms_norm_params {
  tensor out;
  tensor x;
  tensor weight;
  float eps = 1e-6F;
};

// residual += x; out = rms_norm(residual) (the pre-norm of the next sub-layer).
struct add_rms_norm_params {
  tensor residual;  // [n, hidden], updated in place
  tensor x;         // [n, hidden]
  tensor out;       // [n, hidden]
  tensor weight;    // [hidden]
  float eps = 1e-6F;
};

// How a linear layer's weight W [out_features, in_features] is stored.
//   dense: `linear_params::weight`, in the compute type.
//   int4 / int8: unsigned codes q with a zero point z and a scale s per group of
//     `group_size` consecutive inputs of one output row: W[n, k] = (q[n, k] - z[n, g]) * s[n, g]
//     with g = k / group_size (AWQ, GPTQ v1/v2 and compressed-tensors int all map here).
//   fp8_e4m3: e4m3fn codes times a scale per block of `block_rows` x `group_size` weights:
//     W[n, k] = e4m3(q[n, k]) * s[n / block_rows, k / group_size] (per-tensor: one block;
//     per-channel: block_rows 1, group_size in_features; HF/DeepSeek: 128 x 128).
enum class weight_format : std::uint8_t { dense, int4, int8, fp8_e4m3 };

// A quantized W, as every backend that computes with it directly reads it. Codes are in
// input order, or in `input_order`'s order when that is set (GPTQ act-order: the inputs are
// permuted so that each group is contiguous; the op gathers x's columns to match).
struct quantized_weight {
  weight_format format = weight_format::dense;
  std::int64_t out_features = 0;
  std::int64_t in_features = 0;
  std::int64_t group_size = 0;  // inputs per scale (and zero point); divides nothing in general
  std::int64_t block_rows = 1;  // output rows per scale (fp8 only; 1 for int4/int8)
  // u8. int4: [out, ceil(in / 2)], the code of input k in byte k / 2, low nibble for even k;
  // int8 and fp8: [out, in].
  tensor codes;
  tensor scales;       // f32 [ceil(out / block_rows), ceil(in / group_size)]
  tensor zeros;        // u8 [out, ceil(in / group_size)] (int4/int8); empty for fp8
  tensor input_order;  // i32 [in] or empty: code column k multiplies x[:, input_order[k]]
  // FP8 codes from a W8A8 checkpoint (dynamic per-token, or static per-tensor, activation
  // scales; vLLM's --quantization fp8 at load too): a backend that computes in fp8 may
  // quantize x per token, as the checkpoint was made to be run. Otherwise (weight-only
  // checkpoints, and the CPU always) x stays as it is: W8A16.
  bool fp8_activations = false;
  // 0: the layout above. Otherwise the backend's own, made by its upload_quantized
  // (kernels/backend.h) and read only by that backend's linear.
  std::uint8_t packing = 0;

  [[nodiscard]] bool is_quantized() const { return format != weight_format::dense; }
  [[nodiscard]] std::int64_t num_groups() const {
    return (in_features + group_size - 1) / group_size;
  }
};

// out[n, out_features] = x[n, in] @ weight[out_features, in]^T (+ bias). x and weight are
// in the backend's compute type; out is too, or f32 (the logits are always f32). When
// `quantized` is set, `weight` is empty and W is read from it (backends that compute with
// quantized weights only: backend::computes_with(format)).
struct linear_params {
  tensor out;
  tensor x;
  tensor weight;
  tensor bias;  // [out_features] or empty
  quantized_weight quantized{};
};

// Rotary embedding in place, rotate-half (GPT-NeoX) layout as HF Llama/Qwen use:
// for i < d/2, (x[i], x[i + d/2]) is rotated by angle positions[t] * inv_freq[i].
struct rope_params {
  tensor x;          // [n, heads, head_dim]
  tensor positions;  // [n] i32
  tensor inv_freq;   // [head_dim / 2] f32, scaling (linear, llama3) already applied
};

// Paged cache layout per layer: [num_blocks, block_size, num_kv_heads, head_dim].
// key_cache[slot_mapping[t]] = key[t] (same for value); slot = block * block_size + offset.
// A cache of type u8 holds fp8 e4m3 codes (kv_cache_dtype fp8_e4m3, vLLM's convention):
// stored = e4m3(x / scale), read back as code * scale, one scale per layer for K and for V.
struct kv_write_params {
  tensor key_cache;
  tensor value_cache;
  tensor key;                // [n, num_kv_heads, head_dim]
  tensor value;              // [n, num_kv_heads, head_dim]
  tensor slot_mapping;       // [n] i32
  float key_scale = 1.0F;    // u8 caches only
  float value_scale = 1.0F;  // u8 caches only
};

// Causal attention of a flattened batch over the paged cache. Sequence s owns query rows
// [query_start[s], query_start[s + 1]); they are its last tokens, so the row at offset j of
// a sequence with q new tokens sits at position context_lens[s] - q + j and attends to
// cached positions 0..that position. Covers prefill chunks and decodes in one call.
// Query head h reads KV head h / (num_heads / num_kv_heads) (GQA).
struct paged_attention_params {
  tensor out;           // [n, num_heads, head_dim]
  tensor query;         // [n, num_heads, head_dim]
  tensor key_cache;     // [num_blocks, block_size, num_kv_heads, head_dim]
  tensor value_cache;   // same
  tensor query_start;   // [num_seqs + 1] i32, query_start[0] == 0, last == n
  tensor context_lens;  // [num_seqs] i32: tokens in the cache after this step's writes
  tensor block_tables;  // [num_seqs, max_blocks_per_seq] i32
  float scale = 1.0F;
  std::int32_t max_context_len = 0;  // host-side bound, for launch geometry
  // Host-side bound on any sequence's new tokens, for launch geometry; 0 = not known. With
  // a bound above 1, 16-bit backends attend prefill sequences on tensor cores.
  std::int32_t max_query_len = 0;
  float key_scale = 1.0F;  // u8 (fp8 e4m3) caches only, as in kv_write_params
  float value_scale = 1.0F;
};

// out = silu(gate) * up, element-wise.
struct silu_mul_params {
  tensor out;
  tensor gate;
  tensor up;
};

// out[i, :] = x[indices[i], :]
struct gather_rows_params {
  tensor out;
  tensor x;
  tensor indices;  // [m] i32
};

// dst[pairs[i, 0]] = src[pairs[i, 1]] for every i: tokens a step sampled on the device put
// into the next step's token ids without a trip through the host. Every index is in range
// (checked on the CPU; the caller's invariant on the device); no two pairs share a dst.
struct scatter_tokens_params {
  tensor dst;    // [n] i32
  tensor src;    // [m] i32
  tensor pairs;  // [k, 2] i32; k may be 0 (nothing to do)
};

// One row's sampling settings as the device reads them: the pipeline of the host sampler
// (runtime/sampling/sampler.h), step for step. The uniform of the draw is
// philox_uniform(seed, sequence_index, draw) (runtime/sampling/philox.h), computed on the
// device.
// The last eight words are the row's logits processing (process_logits_params), done first.
struct sampling_row {
  float temperature = 1.0F;  // below 1e-5: greedy (argmax, lowest id on ties)
  float top_p = 1.0F;        // 1: off
  float min_p = 0.0F;        // 0: off
  std::int32_t top_k = 0;    // <= 0, or >= vocab: off
  std::uint64_t seed = 0;
  std::uint64_t sequence_index = 0;
  std::uint64_t draw = 0;  // draws this sequence made before
  float presence_penalty = 0.0F;
  float frequency_penalty = 0.0F;
  float repetition_penalty = 1.0F;
  std::int32_t penalty_slot = -1;  // the row of process_logits_params::counts; -1: none
  std::int32_t edit_begin = 0;     // the row's edits: [edit_begin, edit_begin + edit_count)
  std::int32_t edit_count = 0;
  // The row's allowed tokens (none: all), ascending, as process_logits_params::edits pairs
  // [allow_begin, allow_begin + allow_count) whose second words are unused.
  std::int32_t allow_begin = 0;
  std::int32_t allow_count = 0;
  // The row's grammar bitmask (none: mask_words 0): bit t % 32 of word t / 32 set when token
  // t is allowed, mask_words words from process_logits_params::edits pair mask_begin on (the
  // words packed two per pair). Applied first, as the host applies it (structured outputs).
  std::int32_t mask_begin = 0;
  std::int32_t mask_words = 0;
};
inline constexpr std::int64_t sampling_row_words = sizeof(sampling_row) / 4;
static_assert(sizeof(sampling_row) % 8 == 0, "rows of an i32 tensor, 8-byte aligned");

// token_ids[r] = the token the host sampler would pick from logits[r] with rows[r].
struct sample_params {
  tensor token_ids;  // [rows] i32
  tensor logits;     // [rows, vocab] f32
  tensor rows;       // [rows, sampling_row_words] i32: the bytes of sampling_row values
};

// The host's logits processing (runtime/sampling/logits_processing.h) on every row, in
// place, bit for bit: the row's edits (each token once: logit + bias, or -inf where the bias
// is -inf), then, where the row has a penalty slot, its penalties for every token whose
// packed count (runtime/sampling/token_counts.h) is not 0.
struct process_logits_params {
  tensor logits;  // [rows, vocab] f32
  tensor rows;    // [rows, sampling_row_words] i32
  tensor edits;   // [n, 2] i32: (token, bias as f32 bits); n may be 0
  tensor counts;  // [slots, vocab] i32 packed counts; may be empty when no row has a slot
};

// Builds packed counts: for each entry (slot, token, kind), kind 0 marks the token as in the
// prompt (| 1), kind 1 counts one generation of it (+ 2).
struct count_tokens_params {
  tensor counts;   // [slots, vocab] i32
  tensor entries;  // [n, 3] i32; n may be 0
};

// Counts each row's sampled token as generated: counts[slot, token_ids[r]] += 2 for every row
// r whose sampling_row has a penalty slot.
struct count_sampled_params {
  tensor counts;     // [slots, vocab] i32
  tensor token_ids;  // [rows] i32
  tensor rows;       // [rows, sampling_row_words] i32
};

// out = a + b, element-wise; out may alias a or b.
struct add_params {
  tensor out;
  tensor a;
  tensor b;
};

}  // namespace pagedserve::kernels
