// The numeric knobs' rows (api/sampling_knobs.h) against vLLM's SamplingParams: the names are
// its fields, validate() applies each row's range as vLLM's _verify_args and OpenAI's API
// reference state them, and the values survive the list the CAF inspector carries.

#include "api/sampling_knobs.h"

#include <set>
#include <string>

#include <gtest/gtest.h>

namespace pagedserve {
namespace {

// Sets the knob called `name` through the rows; false when no row has that name.
bool set_knob(sampling_params& params, std::string_view name, double x) {
  bool found = false;
  for_each_sampling_knob([&](const auto& knob) {
    using T = typename std::decay_t<decltype(knob)>::value_type;
    if (knob.name != name) return;
    params.*knob.member = static_cast<T>(x);
    found = true;
  });
  return found;
}

TEST(sampling_knobs, NamesAreVllmSamplingParamsFields) {
  // vLLM's SamplingParams (vllm/sampling_params.py), its numeric fields.
  const std::set<std::string> vllm = {"n",
                                      "best_of",
                                      "presence_penalty",
                                      "temperature",
                                      "frequency_penalty",
                                      "repetition_penalty",
                                      "top_p",
                                      "top_k",
                                      "min_p",
                                      "seed",
                                      "max_tokens",
                                      "min_tokens",
                                      "logprobs",
                                      "prompt_logprobs",
                                      "truncate_prompt_tokens"};
  std::set<std::string> seen;
  for_each_sampling_knob([&](const auto& knob) {
    EXPECT_TRUE(vllm.contains(std::string(knob.name))) << knob.name;
    EXPECT_TRUE(seen.insert(std::string(knob.name)).second) << "two rows for " << knob.name;
  });
  EXPECT_EQ(seen.size(), k_num_sampling_knobs);
}

struct range_case {
  const char* name;
  double inside;   // at the edge of the allowed range
  double outside;  // just past it
};

// vLLM's SamplingParams._verify_args, and OpenAI's ranges for the penalties.
TEST(sampling_knobs, ValidateAppliesEachRange) {
  const range_case cases[] = {{"temperature", 0.0, -0.01},
                              {"top_p", 1.0, 0.0},
                              {"top_p", 1e-6, 1.01},
                              {"top_k", -1.0, -2.0},
                              {"min_p", 1.0, 1.01},
                              {"min_p", 0.0, -0.01},
                              {"presence_penalty", -2.0, -2.01},
                              {"frequency_penalty", 2.0, 2.01},
                              {"repetition_penalty", 1e-3, 0.0}};
  for (const range_case& c : cases) {
    sampling_params inside;
    ASSERT_TRUE(set_knob(inside, c.name, c.inside)) << c.name;
    EXPECT_TRUE(inside.validate().ok()) << c.name << " = " << c.inside;
    sampling_params outside;
    ASSERT_TRUE(set_knob(outside, c.name, c.outside));
    const status s = outside.validate();
    ASSERT_FALSE(s.ok()) << c.name << " = " << c.outside;
    EXPECT_EQ(s.err().message.rfind(std::string(c.name) + " must be ", 0), 0u) << s.err().message;
  }
  sampling_params nan;
  nan.temperature = std::numeric_limits<float>::quiet_NaN();
  EXPECT_FALSE(nan.validate().ok());
}

TEST(sampling_knobs, ValuesRoundTripThroughTheCarriedList) {
  sampling_params p;
  p.temperature = 0.7f;
  p.top_p = 0.95f;
  p.top_k = -1;
  p.min_p = 0.05f;
  p.presence_penalty = -1.5f;
  p.frequency_penalty = 0.25f;
  p.repetition_penalty = 1.1f;
  p.min_tokens = 4'000'000'000u;
  sampling_params q;
  ASSERT_TRUE(set_sampling_knob_values(q, sampling_knob_values(p)));
  EXPECT_EQ(sampling_knob_values(q), sampling_knob_values(p));
  EXPECT_EQ(q.min_p, 0.05f);
  EXPECT_EQ(q.min_tokens, 4'000'000'000u);
  EXPECT_EQ(q.top_k, -1);

  std::vector<double> short_list = sampling_knob_values(p);
  short_list.pop_back();
  EXPECT_FALSE(set_sampling_knob_values(q, short_list));
  std::vector<double> fractional = sampling_knob_values(p);
  fractional[2] = 2.5;  // top_k
  sampling_params untouched;
  EXPECT_FALSE(set_sampling_knob_values(untouched, fractional));
  EXPECT_EQ(untouched.temperature, 1.0f);  // nothing was set
}

}  // namespace
}  // namespace pagedserve
