#pragma once
// Helpers for the tests of the shipped demo model (models/pagedserve-demo): the engine's
// view of it (runtime/eval's model loading, the CPU backend) and greedy completions through
// the engine's forward.

#include <gtest/gtest.h>

#include <algorithm>
#include <span>
#include <string>
#include <vector>

#include "api/engine_config.h"
#include "runtime/eval/eval_model.h"
#include "runtime/eval/sequence_prefill.h"
#include "runtime/model/model_config.h"
#include "train/model/model_shape.h"

namespace pagedserve::train::testing {

// The model an engine_config names, loaded as the engine loads it; fails the test otherwise.
inline eval::eval_model load_engine_model_or_fail(const engine_config& config) {
  auto model = eval::load_eval_model(config);
  EXPECT_TRUE(model.ok()) << (model.ok() ? "" : model.err().message);
  return std::move(*model);
}

// The trainer's shape of a model the engine loaded.
inline model_shape shape_of(const model_config& c) {
  model_shape s;
  s.vocab_size = c.vocab_size;
  s.hidden_size = c.hidden_size;
  s.intermediate_size = c.intermediate_size;
  s.num_layers = c.num_layers;
  s.num_heads = c.num_heads;
  s.num_kv_heads = c.num_kv_heads;
  s.head_dim = c.head_dim;
  s.max_position_embeddings = c.max_position_embeddings;
  s.rope_theta = c.rope.theta;
  s.rms_norm_eps = c.rms_norm_eps;
  s.tie_word_embeddings = c.tie_word_embeddings;
  return s;
}

// Greedy decoding by teacher-forced prefills of the whole text so far (quadratic, and fine
// for a few dozen tokens): the generated ids, stopping after an end-of-sequence id.
inline std::vector<token_id> greedy_completion(eval::eval_model& model, std::vector<token_id> ids,
                                               int max_tokens, std::span<const token_id> eos) {
  eval::sequence_prefill prefill(*model.forward, static_cast<std::int64_t>(ids.size()) + max_tokens,
                                 16);
  std::vector<token_id> generated;
  for (int i = 0; i < max_tokens; ++i) {
    const auto n = static_cast<std::int64_t>(ids.size());
    const forward::forward_output out = prefill.run_chunk(ids, 0, n);
    const std::span<const float> last = out.row(static_cast<std::size_t>(n - 1));
    const auto next =
        static_cast<token_id>(std::max_element(last.begin(), last.end()) - last.begin());
    generated.push_back(next);
    if (std::find(eos.begin(), eos.end(), next) != eos.end()) break;
    ids.push_back(next);
  }
  return generated;
}

}  // namespace pagedserve::train::testing
