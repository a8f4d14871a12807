#include "service/resp/dispatch/exec_gate.h"

#include <atomic>
#include <thread>

#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"

namespace trackdb::resp {
namespace {

using Hold = ExecGate::Hold;

TEST(ExecGateTest, ExclusiveWaitsForSharedHolders) {
  ExecGate gate;
  std::atomic<bool> exclusive_held{false};
  absl::Notification shared_taken, release_shared;
  std::thread reader([&] {
    ExecGate::Shared shared(gate, /*take=*/true);
    EXPECT_EQ(ExecGate::held(), Hold::kShared);
    shared_taken.Notify();
    release_shared.WaitForNotification();
    EXPECT_FALSE(exclusive_held.load());
  });
  shared_taken.WaitForNotification();
  std::thread exec([&] {
    ExecGate::Exclusive exclusive(gate);
    exclusive_held = true;
    EXPECT_EQ(ExecGate::held(), Hold::kExclusive);
  });
  absl::SleepFor(absl::Milliseconds(50));
  EXPECT_FALSE(exclusive_held.load());
  release_shared.Notify();
  reader.join();
  exec.join();
  EXPECT_TRUE(exclusive_held.load());
  EXPECT_EQ(ExecGate::held(), Hold::kNone);
}

TEST(ExecGateTest, NestedAndUntakenHoldsTakeNothing) {
  ExecGate gate;
  {
    ExecGate::Exclusive exclusive(gate);
    // A call run by EXEC: no shared hold on top of the exclusive one.
    ExecGate::Shared inner(gate, /*take=*/true);
    EXPECT_EQ(ExecGate::held(), Hold::kExclusive);
  }
  {
    ExecGate::Shared untaken(gate, /*take=*/false);
    EXPECT_EQ(ExecGate::held(), Hold::kNone);
    ExecGate::Shared outer(gate, /*take=*/true);
    ExecGate::Shared inner(gate, /*take=*/true);
    EXPECT_EQ(ExecGate::held(), Hold::kShared);
  }
  EXPECT_EQ(ExecGate::held(), Hold::kNone);
  // Nothing is left held: an exclusive hold is free to take.
  ExecGate::Exclusive again(gate);
}

TEST(ExecGateTest, ReleasedLetsExclusiveInDuringAWait) {
  ExecGate gate;
  absl::Notification waiting, exec_done;
  std::thread pop([&] {
    ExecGate::Shared shared(gate, /*take=*/true);
    {
      ExecGate::Released released(gate);
      EXPECT_EQ(ExecGate::held(), Hold::kNone);
      waiting.Notify();
      EXPECT_TRUE(exec_done.WaitForNotificationWithTimeout(absl::Seconds(10)));
    }
    EXPECT_EQ(ExecGate::held(), Hold::kShared);
  });
  waiting.WaitForNotification();
  { ExecGate::Exclusive exclusive(gate); }
  exec_done.Notify();
  pop.join();
}

TEST(ExecGateTest, ReleasedLeavesAnotherGatesHoldAlone) {
  ExecGate mine, other;
  ExecGate::Shared shared(mine, /*take=*/true);
  {
    ExecGate::Released released(other);
    EXPECT_EQ(ExecGate::held(), Hold::kShared);
  }
  EXPECT_EQ(ExecGate::held(), Hold::kShared);
}

}  // namespace
}  // namespace trackdb::resp

namespace trackdb::resp {
namespace {

// EVAL inside EXEC: the thread holding the gate exclusively takes it
// again without waiting for itself.
TEST(ExecGateTest, ExclusiveNestsOnItsOwnThread) {
  ExecGate gate;
  {
    ExecGate::Exclusive outer(gate);
    ExecGate::Exclusive inner(gate);
    EXPECT_EQ(ExecGate::held(), Hold::kExclusive);
  }
  EXPECT_EQ(ExecGate::held(), Hold::kNone);
  ExecGate::Exclusive again(gate);  // released once, by the outer hold
}

// A shared holder waiting behind a long exclusive hold gives up once
// asked to (a script past its time: BUSY), holding nothing.
TEST(ExecGateTest, SharedWaitGivesUpWhenAsked) {
  ExecGate gate;
  absl::Notification held, release;
  std::thread script([&] {
    ExecGate::Exclusive exclusive(gate);
    held.Notify();
    release.WaitForNotification();
  });
  held.WaitForNotification();
  std::atomic<bool> busy{false};
  std::thread caller([&] {
    ExecGate::Shared shared(gate, /*take=*/true, [&] { return busy.load(); });
    EXPECT_TRUE(shared.gave_up());
    EXPECT_EQ(ExecGate::held(), Hold::kNone);
  });
  absl::SleepFor(absl::Milliseconds(40));
  busy = true;
  caller.join();
  release.Notify();
  script.join();
  ExecGate::Shared after(gate, /*take=*/true, [] { return true; });
  EXPECT_FALSE(after.gave_up());
  EXPECT_EQ(ExecGate::held(), Hold::kShared);
}

}  // namespace
}  // namespace trackdb::resp
