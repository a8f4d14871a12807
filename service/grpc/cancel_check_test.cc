#include "service/grpc/cancel_check.h"

#include "gtest/gtest.h"

namespace trackdb::service {
namespace {

using Clock = std::chrono::system_clock;

TEST(CancelCheckTest, AsksIsCancelledOnlyEveryPollInterval) {
  int asked = 0;
  CancelCheck check(Clock::now() + std::chrono::hours(1), [&asked] {
    ++asked;
    return false;
  });
  const uint64_t items = 10 * CancelCheck::kPollEvery + 7;
  for (uint64_t i = 0; i < items; ++i) ASSERT_TRUE(check.Continue());
  EXPECT_EQ(asked, 10);
  EXPECT_TRUE(check.status().ok());
}

TEST(CancelCheckTest, StopsWithinAPollIntervalOfACancel) {
  CancelCheck check(Clock::now() + std::chrono::hours(1), [] { return true; });
  uint64_t n = 0;
  while (check.Continue()) ++n;
  EXPECT_EQ(n + 1, CancelCheck::kPollEvery);
  EXPECT_EQ(check.status().error_code(), grpc::StatusCode::CANCELLED);
}

TEST(CancelCheckTest, StopsWithinAClockIntervalOfTheDeadline) {
  int asked = 0;
  CancelCheck check(Clock::now() - std::chrono::seconds(1), [&asked] {
    ++asked;
    return false;
  });
  uint64_t n = 0;
  while (check.Continue()) ++n;
  EXPECT_EQ(n + 1, CancelCheck::kClockEvery);
  EXPECT_EQ(asked, 0);
  EXPECT_EQ(check.status().error_code(), grpc::StatusCode::DEADLINE_EXCEEDED);
}

}  // namespace
}  // namespace trackdb::service
