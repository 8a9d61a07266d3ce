#pragma once
// The acceptance bound for fp32 logits: max |got - want| <= 1e-4 * max |want|.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <span>

namespace pagedserve::forward::testing {

inline ::testing::AssertionResult logits_match(std::span<const float> got,
                                               std::span<const float> want) {
  if (got.size() != want.size()) {
    return ::testing::AssertionFailure() << "size " << got.size() << " vs " << want.size();
  }
  double max_err = 0.0;
  double max_ref = 0.0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    max_err = std::max(max_err, std::abs(double{got[i]} - want[i]));
    max_ref = std::max(max_ref, std::abs(double{want[i]}));
  }
  if (max_err <= 1e-4 * max_ref) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "max abs error " << max_err << " > 1e-4 * " << max_ref;
}

}  // namespace pagedserve::forward::testing
