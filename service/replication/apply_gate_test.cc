#include "service/replication/apply_gate.h"

#include <atomic>
#include <thread>

#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"

namespace trackdb::replication {
namespace {

TEST(ApplyGateTest, RunsUntilClosedAndNeverAfter) {
  ApplyGate gate;
  int applied = 0;
  auto apply = [&] {
    ++applied;
    return absl::OkStatus();
  };
  EXPECT_TRUE(gate.Run(apply).ok());
  EXPECT_EQ(applied, 1);
  gate.Close();
  EXPECT_TRUE(absl::IsCancelled(gate.Run(apply)));
  EXPECT_EQ(applied, 1);
}

TEST(ApplyGateTest, PassesOnTheApplysStatus) {
  ApplyGate gate;
  EXPECT_TRUE(absl::IsDataLoss(
      gate.Run([] { return absl::DataLossError("corrupt batch"); })));
}

TEST(ApplyGateTest, CloseWaitsOutAnApplyInProgress) {
  ApplyGate gate;
  absl::Notification started, release;
  std::atomic<bool> finished{false};
  std::thread applier([&] {
    EXPECT_TRUE(gate.Run([&] {
                      started.Notify();
                      release.WaitForNotification();
                      finished = true;
                      return absl::OkStatus();
                    })
                    .ok());
  });
  started.WaitForNotification();
  std::atomic<bool> closed{false};
  std::thread closer([&] {
    gate.Close();
    closed = true;
    // Whatever it closed on was done when Close returned.
    EXPECT_TRUE(finished.load());
  });
  absl::SleepFor(absl::Milliseconds(50));
  EXPECT_FALSE(closed.load());
  release.Notify();
  closer.join();
  applier.join();
  EXPECT_TRUE(closed.load());
}

}  // namespace
}  // namespace trackdb::replication
