// Structured outputs through the CPU step executor on the golden models: whatever the random
// stream picks (temperature 1, many seeds), the text matches the grammar (checked with
// std::regex, an independent matcher), the stop token comes once the text is complete and
// never before, and a preemption in the middle of the text changes none of it.

#include <gtest/gtest.h>

#include <regex>
#include <vector>

#include "runtime/engine/engine_start.h"
#include "runtime/grammar/compiled_grammar.h"
#include "runtime/worker/step_executor.h"
#include "tests/runtime/worker/golden_set.h"
#include "tests/runtime/worker/grammar_vocabulary.h"
#include "tests/runtime/worker/step_executor_test_driver.h"

namespace pagedserve {
namespace {

using engine_testing::golden_set;
using engine_testing::grammar_text;
using engine_testing::grammar_vocabulary;
using engine_testing::load_golden;
using engine_testing::test_driver;

constexpr int k_num_prompts = 3;  // the short ones: prompt + 48 tokens fit max_model_len

seq_id seq_of(int prompt) { return seq_id{static_cast<std::uint64_t>(prompt) + 1}; }

std::shared_ptr<const grammar::compiled_grammar> object_grammar(const golden_set& g) {
  auto compiled =
      grammar::compile_gbnf(engine_testing::object_gbnf,
                            grammar_vocabulary(static_cast<std::size_t>(g.config.vocab_size)));
  EXPECT_TRUE(compiled.ok()) << (compiled.ok() ? "" : compiled.err().message);
  return compiled.ok() ? *compiled : nullptr;
}

engine_testing::drive_options sampled(std::uint64_t seed,
                                      std::shared_ptr<const grammar::compiled_grammar> grammar) {
  engine_testing::drive_options options;
  options.params.temperature = 1.0f;
  options.params.seed = seed;
  options.grammar = std::move(grammar);
  return options;
}

void expect_matches(const test_driver& driver, const golden_set& g, const std::string& what) {
  const std::regex want(engine_testing::object_regex);
  for (int i = 0; i < k_num_prompts; ++i) {
    const auto out =
        grammar_text(driver.generated(seq_of(i)), static_cast<std::size_t>(g.config.vocab_size));
    EXPECT_TRUE(out.stopped) << what << " prompt " << i << ": " << out.text;
    EXPECT_TRUE(std::regex_match(out.text, want)) << what << " prompt " << i << ": " << out.text;
  }
}

TEST(grammar_executor, every_seed_gives_text_the_grammar_accepts_then_the_stop_token) {
  for (const char* name : {"tiny-llama", "tiny-qwen3"}) {
    const golden_set g = load_golden(name);
    const auto grammar = object_grammar(g);
    ASSERT_NE(grammar, nullptr);
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
      auto executor = engine_testing::make_cpu_golden_executor(g);
      test_driver driver(*executor, sampled(seed, grammar));
      for (int i = 0; i < k_num_prompts; ++i) driver.add(seq_of(i), g.prompts[i]);
      driver.run_to_end(48);
      expect_matches(driver, g, std::string(name) + " seed " + std::to_string(seed));
    }
  }
}

TEST(grammar_executor, a_preempted_sequence_keeps_its_grammar_position) {
  const golden_set g = load_golden("tiny-qwen3");
  const auto grammar = object_grammar(g);
  ASSERT_NE(grammar, nullptr);
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    auto executor = engine_testing::make_cpu_golden_executor(g);
    test_driver driver(*executor, sampled(seed, grammar));
    for (int i = 0; i < k_num_prompts; ++i) driver.add(seq_of(i), g.prompts[i]);
    for (int s = 0; s < 6; ++s) ASSERT_TRUE(driver.step().ok());
    driver.preempt_next(seq_of(1));  // a few characters into its text
    driver.run_to_end(48);
    expect_matches(driver, g, "seed " + std::to_string(seed));
  }
}

// min_tokens past any text the grammar allows holds back the stop token once the text is
// complete, and allowed_token_ids of two letters exclude the "{" the grammar needs first: the
// grammar wins both times, so every text is still complete and ends with the stop token
// (not with whatever a row of -inf falls back to).
TEST(grammar_executor, the_grammar_wins_over_min_tokens_and_allowed_token_ids) {
  const golden_set g = load_golden("tiny-llama");
  const auto grammar = object_grammar(g);
  ASSERT_NE(grammar, nullptr);
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    auto options = sampled(seed, grammar);
    options.params.min_tokens = 45;  // the longest object has 37 characters
    options.held_stop_token_ids = {static_cast<token_id>(g.config.vocab_size - 1)};
    if (seed % 2 == 0) options.params.allowed_token_ids = {0, 1};  // "a" and "b"
    auto executor = engine_testing::make_cpu_golden_executor(g);
    test_driver driver(*executor, options);
    for (int i = 0; i < k_num_prompts; ++i) driver.add(seq_of(i), g.prompts[i]);
    driver.run_to_end(48);
    expect_matches(driver, g, "seed " + std::to_string(seed));
  }
}

}  // namespace
}  // namespace pagedserve
