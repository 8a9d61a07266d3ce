#include "loadtest/core/progress_bar.h"

#include <gtest/gtest.h>

namespace pagedserve::loadtest {
namespace {

TEST(LoadtestProgressBar, DisabledDrawsNothing) {
  ::testing::internal::CaptureStderr();
  progress_bar bar(4, false);
  bar.update(4, 1);
  bar.finish();
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
}

TEST(LoadtestProgressBar, DrawsCountsAndEndsTheLine) {
  ::testing::internal::CaptureStderr();
  progress_bar bar(4, true);
  bar.update(2, 1);  // the first update draws
  bar.update(4, 1);  // the last one always draws
  bar.finish();
  const std::string out = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(out.find("\r[##########..........]  2/4  1 failed"), std::string::npos) << out;
  EXPECT_NE(out.find("\r[####################]  4/4  1 failed"), std::string::npos) << out;
  EXPECT_EQ(out.back(), '\n');
}

}  // namespace
}  // namespace pagedserve::loadtest
