#include "service/jobs/stoppable_thread.h"

#include <atomic>

#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"

namespace trackdb::service {
namespace {

TEST(StoppableThreadTest, StopWakesALongWait) {
  StoppableThread thread;
  absl::Notification waiting;
  std::atomic<bool> woke_stopped{false};
  thread.Start([&] {
    waiting.Notify();
    woke_stopped = !thread.WaitFor(absl::Hours(1));
  });
  waiting.WaitForNotification();
  const absl::Time before = absl::Now();
  thread.Stop();
  EXPECT_TRUE(woke_stopped);
  EXPECT_LT(absl::Now() - before, absl::Minutes(1));
  EXPECT_TRUE(thread.Stopped());
}

TEST(StoppableThreadTest, WaitForSleepsWhileRunning) {
  StoppableThread thread;
  EXPECT_FALSE(thread.Stopped());
  const absl::Time before = absl::Now();
  EXPECT_TRUE(thread.WaitFor(absl::Milliseconds(20)));
  EXPECT_GE(absl::Now() - before, absl::Milliseconds(20));
}

TEST(StoppableThreadTest, DestructorStopsAPollingBody) {
  std::atomic<int> loops{0};
  {
    StoppableThread thread;
    thread.Start([&] {
      while (!thread.Stopped()) {
        ++loops;
        thread.WaitFor(absl::Milliseconds(1));
      }
    });
    while (loops == 0) absl::SleepFor(absl::Milliseconds(1));
  }
  const int after = loops;
  absl::SleepFor(absl::Milliseconds(10));
  EXPECT_EQ(loops, after);
}

TEST(StoppableThreadTest, StopWithoutStartAndTwice) {
  StoppableThread thread;
  thread.Stop();
  thread.Stop();
  EXPECT_TRUE(thread.Stopped());
  EXPECT_FALSE(thread.WaitFor(absl::Hours(1)));
}

}  // namespace
}  // namespace trackdb::service
