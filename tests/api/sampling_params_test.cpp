#include "api/sampling_params.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

namespace pagedserve {
namespace {

using ::testing::HasSubstr;

// The error message of an invalid configuration ("" if it is valid).
std::string error_of(const sampling_params& params) {
  const status s = params.validate();
  if (s.ok()) return "";
  EXPECT_EQ(s.err().code, error_code::invalid_argument);
  return s.err().message;
}

TEST(SamplingParams, DefaultsAreValidAndNotGreedy) {
  const sampling_params params;
  EXPECT_TRUE(params.validate().ok());
  EXPECT_FALSE(params.is_greedy());
  EXPECT_FALSE(params.top_k_enabled());
  EXPECT_FALSE(params.top_p_enabled());
  EXPECT_FALSE(params.min_p_enabled());
}

TEST(SamplingParams, TinyTemperatureMeansGreedy) {
  EXPECT_TRUE(sampling_params{.temperature = 0.0f}.is_greedy());
  EXPECT_TRUE(sampling_params{.temperature = 1e-6f}.is_greedy());
  EXPECT_FALSE(sampling_params{.temperature = 1e-4f}.is_greedy());
}

TEST(SamplingParams, TopKMinusOneAndZeroMeanOff) {
  EXPECT_TRUE(sampling_params{.top_k = -1}.validate().ok());
  EXPECT_FALSE(sampling_params{.top_k = -1}.top_k_enabled());
  EXPECT_FALSE(sampling_params{.top_k = 0}.top_k_enabled());
  EXPECT_TRUE(sampling_params{.top_k = 1}.top_k_enabled());
}

TEST(SamplingParams, RejectsOutOfRangeValuesNamingFieldAndValue) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_THAT(error_of({.temperature = -0.5f}), HasSubstr("temperature must be"));
  EXPECT_THAT(error_of({.temperature = -0.5f}), HasSubstr("got -0.5"));
  EXPECT_THAT(error_of({.temperature = nan}), HasSubstr("temperature"));
  EXPECT_THAT(error_of({.temperature = inf}), HasSubstr("temperature"));
  EXPECT_THAT(error_of({.top_p = 0.0f}), HasSubstr("top_p must be in (0, 1], got 0"));
  EXPECT_THAT(error_of({.top_p = 1.5f}), HasSubstr("top_p"));
  EXPECT_THAT(error_of({.top_p = nan}), HasSubstr("top_p"));
  EXPECT_THAT(error_of({.top_k = -2}), HasSubstr("top_k must be"));
  EXPECT_THAT(error_of({.top_k = -2}), HasSubstr("got -2"));
  EXPECT_THAT(error_of({.min_p = -0.1f}), HasSubstr("min_p must be in [0, 1]"));
  EXPECT_THAT(error_of({.min_p = 1.1f}), HasSubstr("min_p"));
  EXPECT_THAT(error_of({.logprobs = -1}), HasSubstr("logprobs must be in [0, 20], got -1"));
  EXPECT_THAT(error_of({.logprobs = 21}), HasSubstr("logprobs"));
}

TEST(SamplingParams, AcceptsBoundaryValues) {
  EXPECT_EQ(error_of({.temperature = 0.0f, .top_p = 1.0f, .top_k = 1, .min_p = 1.0f}), "");
  EXPECT_EQ(error_of({.top_p = 1e-9f, .min_p = 0.0f, .logprobs = 0}), "");
  EXPECT_EQ(error_of({.logprobs = 20}), "");
}

}  // namespace
}  // namespace pagedserve
