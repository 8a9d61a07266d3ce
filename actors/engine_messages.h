#pragma once
// The engine actor's public messages (actors/engine_actor.h), with the inspect() overloads
// that let CAF 0.17 copy, print and serialize them: they cross the network when the engine
// is published. Registered by add_engine_message_types (actors/spawn_engine.h):
// generation_request, sampling_params, token_chunk, request_final, request_lifecycle,
// request_usage, engine_stats, shutdown_report, request_id. Nested in them (inspected, not
// registered): chunk_logprob, token_logprob, histogram. The values are api/'s; this header
// only teaches CAF about them. The actors' internal messages: actors/messages.h.
//
// CAF 0.17 serializes enums itself (no inspect() for finish_reason or engine_errc) and knows
// no std::optional: optional fields travel as a presence flag plus a value, and strong ids
// as their integer, both through temporaries written back by a load callback.

#include <caf/all.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/engine_events.h"
#include "api/engine_stats.h"
#include "api/generation_request.h"
#include "api/sampling_knobs.h"
#include "api/sampling_params.h"
#include "api/shutdown_report.h"
#include "common/histogram.h"
#include "common/strong_id.h"

namespace pagedserve::actors {

// The engine actor's atoms (at most 10 characters in CAF 0.17).
using submit_atom = caf::atom_constant<caf::atom("submit")>;
using cancel_atom = caf::atom_constant<caf::atom("cancel")>;
using stats_atom = caf::atom_constant<caf::atom("stats")>;
using shutdown_atom = caf::atom_constant<caf::atom("shutdown")>;

// Failures between actors; make_error() makes a caf::error of category "pagedserve" (see
// actors/engine_errors.h for the way back).
enum class engine_errc : std::uint8_t {
  invalid_request = 1,  // malformed: empty prompt, bad sampling parameters, ids out of range
  capacity_exceeded,    // can never fit: prompt + max_tokens past max_model_len or the pool
  queue_full,           // max_waiting_requests reached: try again later
  shutting_down,        // shutdown() was called: no new requests
  step_failed,          // the step running the request failed
  internal,             // a bug
};

inline constexpr caf::atom_value engine_error_category = caf::atom("pagedserve");

// Found by CAF through ADL: `caf::error e = engine_errc::queue_full;` works.
[[nodiscard]] caf::error make_error(engine_errc code);
[[nodiscard]] caf::error make_error(engine_errc code, std::string context);

}  // namespace pagedserve::actors

namespace pagedserve {

// Strong ids travel as their integer.
template <class Inspector, class Tag, class Rep>
typename Inspector::result_type inspect(Inspector& f, strong_id<Tag, Rep>& x) {
  Rep value = x.value();
  auto load = caf::meta::load_callback([&]() -> caf::error {
    x = strong_id<Tag, Rep>{value};
    return caf::none;
  });
  return f(caf::meta::type_name("strong_id"), value, load);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, sampling_params& x) {
  // The numeric knobs travel as one list, in api/sampling_knobs.h's row order.
  std::vector<double> knobs = sampling_knob_values(x);
  bool has_seed = x.seed.has_value();
  std::uint64_t seed = x.seed.value_or(0);
  bool has_logprobs = x.logprobs.has_value();
  std::int32_t logprobs = x.logprobs.value_or(0);
  bool has_prompt_logprobs = x.prompt_logprobs.has_value();
  std::int32_t prompt_logprobs = x.prompt_logprobs.value_or(0);
  std::vector<token_id> bias_tokens;
  std::vector<float> bias_values;
  for (const auto& [token, bias] : x.logit_bias) {
    bias_tokens.push_back(token);
    bias_values.push_back(bias);
  }
  // structured_outputs: present, its kind's number, its spec and its choices.
  bool has_structured = x.structured_outputs.has_value();
  std::uint8_t structured_kind =
      has_structured ? static_cast<std::uint8_t>(x.structured_outputs->type) : 0;
  std::string structured_spec = has_structured ? x.structured_outputs->spec : std::string();
  std::vector<std::string> structured_choice =
      has_structured ? x.structured_outputs->choice : std::vector<std::string>();
  // pooling: present, its type's number, normalize, and dimensions (0: all).
  bool has_pooling = x.pooling.has_value();
  std::uint8_t pooling_kind = has_pooling ? static_cast<std::uint8_t>(x.pooling->type) : 0;
  bool pooling_normalize = has_pooling && x.pooling->normalize;
  std::uint32_t pooling_dimensions = has_pooling ? x.pooling->dimensions.value_or(0) : 0;
  // bad_words_token_ids flattened: each word's length, then all the ids.
  std::vector<std::uint32_t> bad_word_lengths;
  std::vector<token_id> bad_word_ids;
  for (const std::vector<token_id>& word : x.bad_words_token_ids) {
    bad_word_lengths.push_back(static_cast<std::uint32_t>(word.size()));
    bad_word_ids.insert(bad_word_ids.end(), word.begin(), word.end());
  }
  auto load = caf::meta::load_callback([&]() -> caf::error {
    if (!set_sampling_knob_values(x, knobs)) return caf::sec::invalid_argument;
    x.seed = has_seed ? std::optional<std::uint64_t>(seed) : std::nullopt;
    x.logprobs = has_logprobs ? std::optional<std::int32_t>(logprobs) : std::nullopt;
    x.prompt_logprobs =
        has_prompt_logprobs ? std::optional<std::int32_t>(prompt_logprobs) : std::nullopt;
    if (bias_tokens.size() != bias_values.size()) return caf::sec::invalid_argument;
    x.logit_bias.clear();
    for (std::size_t i = 0; i < bias_tokens.size(); ++i) {
      x.logit_bias.emplace_back(bias_tokens[i], bias_values[i]);
    }
    x.bad_words_token_ids.clear();
    std::size_t at = 0;
    for (const std::uint32_t length : bad_word_lengths) {
      if (length > bad_word_ids.size() - at) return caf::sec::invalid_argument;
      x.bad_words_token_ids.emplace_back(
          bad_word_ids.begin() + static_cast<std::ptrdiff_t>(at),
          bad_word_ids.begin() + static_cast<std::ptrdiff_t>(at + length));
      at += length;
    }
    if (at != bad_word_ids.size()) return caf::sec::invalid_argument;
    x.pooling.reset();
    if (has_pooling) {
      if (pooling_kind > static_cast<std::uint8_t>(pooling_type::cls)) {
        return caf::sec::invalid_argument;
      }
      x.pooling = pooling_params{
          static_cast<pooling_type>(pooling_kind),
          pooling_dimensions > 0 ? std::optional<std::uint32_t>(pooling_dimensions) : std::nullopt,
          pooling_normalize};
    }
    x.structured_outputs.reset();
    if (has_structured) {
      if (structured_kind > static_cast<std::uint8_t>(structured_outputs_params::kind::grammar)) {
        return caf::sec::invalid_argument;
      }
      x.structured_outputs =
          structured_outputs_params{static_cast<structured_outputs_params::kind>(structured_kind),
                                    std::move(structured_spec), std::move(structured_choice)};
    }
    return caf::none;
  });
  return f(caf::meta::type_name("sampling_params"), x.n, x.max_tokens, x.stop, x.stop_token_ids,
           x.ignore_eos, x.skip_special_tokens, x.include_stop_str_in_output, knobs, has_seed, seed,
           has_logprobs, logprobs, bias_tokens, bias_values, has_prompt_logprobs, prompt_logprobs,
           x.allowed_token_ids, bad_word_lengths, bad_word_ids, has_structured, structured_kind,
           structured_spec, structured_choice, has_pooling, pooling_kind, pooling_normalize,
           pooling_dimensions, load);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, generation_request& x) {
  return f(caf::meta::type_name("generation_request"), x.prompt_token_ids, x.prompt, x.sampling,
           x.priority, x.add_special_tokens, x.report_lifecycle);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, token_logprob& x) {
  return f(caf::meta::type_name("token_logprob"), x.token, x.logprob);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, chunk_logprob& x) {
  return f(caf::meta::type_name("chunk_logprob"), x.token, x.logprob, x.top, x.rank);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, token_chunk& x) {
  return f(caf::meta::type_name("token_chunk"), x.request, x.index, x.token_ids, x.text, x.logprobs,
           x.prompt_logprobs, x.embedding);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, request_usage& x) {
  return f(caf::meta::type_name("request_usage"), x.prompt_tokens, x.completion_tokens,
           x.cached_prompt_tokens);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, request_final& x) {
  bool has_stop_string = x.stop_string.has_value();
  std::string stop_string = x.stop_string.value_or(std::string{});
  auto load = caf::meta::load_callback([&]() -> caf::error {
    x.stop_string = has_stop_string ? std::optional<std::string>(stop_string) : std::nullopt;
    return caf::none;
  });
  return f(caf::meta::type_name("request_final"), x.request, x.index, x.reason, x.error_message,
           has_stop_string, stop_string, x.text, x.usage, x.queue_time_s, x.finished, load);
}

// lifecycle_stage is an enum: CAF 0.17 serializes it itself.
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, request_lifecycle& x) {
  return f(caf::meta::type_name("request_lifecycle"), x.request, x.index, x.stage,
           x.num_cached_tokens, x.num_computed_tokens_lost, x.step, x.time);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, histogram& x) {
  return f(caf::meta::type_name("histogram"), x.upper_bounds, x.counts, x.sum, x.count);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, engine_stats& x) {
  return f(caf::meta::type_name("engine_stats"), x.num_running, x.num_waiting, x.num_total_blocks,
           x.num_free_blocks, x.kv_usage, x.num_requests, x.num_rejected, x.num_finished_stop,
           x.num_finished_length, x.num_cancelled, x.num_failed, x.num_steps, x.num_failed_steps,
           x.num_preemptions, x.num_prompt_tokens, x.num_generation_tokens, x.prefix_cache_queries,
           x.prefix_cache_hits, x.sum_batch_size, x.kv_utilization_sum, x.executor_idle_s,
           x.executor_busy_s, x.device_idle_s, x.device_busy_s, x.executor_host_s,
           x.num_graph_steps, x.iteration_tokens, x.moe_num_experts, x.moe_expert_tokens,
           x.spec_decode_num_drafts, x.spec_decode_num_draft_tokens,
           x.spec_decode_num_accepted_tokens, x.spec_decode_accepted_per_pos);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, shutdown_report& x) {
  return f(caf::meta::type_name("shutdown_report"), x.num_drained, x.num_cancelled,
           x.num_leaked_blocks, x.timed_out);
}

}  // namespace pagedserve
