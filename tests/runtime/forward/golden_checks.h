#pragma once
// The golden forward checks, for any backend the model was loaded on: each prompt alone, and
// the four prompts in one mixed batch of staggered starts and chunked prefills, against the
// HF reference logits (logits_match's fp32 bound) and greedy tokens (exactly).

#include <gtest/gtest.h>

#include <vector>

#include "tests/runtime/forward/golden_model.h"
#include "tests/runtime/forward/logits_match.h"
#include "tests/runtime/forward/schedule_runner.h"

namespace pagedserve::forward::testing {

inline void expect_each_prompt_alone_matches(golden_model& m) {
  for (int i = 0; i < num_golden_prompts; ++i) {
    const golden_prompt& p = m.prompts[static_cast<std::size_t>(i)];
    const auto records = run_schedule(*m.forward, {{p.ids}}, 16);
    EXPECT_TRUE(logits_match(records[0].prompt_logits, p.logits)) << "prompt " << i;
    EXPECT_EQ(records[0].generated, p.greedy) << "prompt " << i;
    EXPECT_TRUE(logits_match(records[0].generated_logits, p.greedy_logits)) << "prompt " << i;
  }
}

// Every prompt of `seqs` (the golden prompts, in order) against the reference: prompt
// logits, greedy tokens, and the logits each token was picked from.
inline void expect_schedule_matches(golden_model& m, const std::vector<scheduled_sequence>& seqs,
                                    const decode_graph_options* graphs = nullptr) {
  const auto records = run_schedule(*m.forward, seqs, 16, 256, graphs);
  for (std::size_t i = 0; i < seqs.size(); ++i) {
    const golden_prompt& p = m.prompts[i];
    const sequence_record& r = records[i];
    EXPECT_TRUE(logits_match(r.prompt_logits, p.logits)) << "prompt " << i;
    EXPECT_EQ(r.generated, p.greedy) << "prompt " << i;
    EXPECT_TRUE(logits_match(r.generated_logits, p.greedy_logits)) << "prompt " << i;
  }
}

// Staggered starts and chunked prefills: the short prompts decode while the long ones are
// still prefilling, so steps mix prefill chunks with decode tokens.
inline void expect_mixed_batch_matches(golden_model& m) {
  std::vector<scheduled_sequence> seqs;
  for (int i = 0; i < num_golden_prompts; ++i) {
    seqs.push_back({m.prompts[static_cast<std::size_t>(i)].ids, 13, i, num_greedy_tokens});
  }
  expect_schedule_matches(m, seqs);
}

}  // namespace pagedserve::forward::testing
