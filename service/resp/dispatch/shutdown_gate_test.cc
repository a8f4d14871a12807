#include "service/resp/dispatch/shutdown_gate.h"

#include <atomic>
#include <thread>

#include "gtest/gtest.h"

namespace trackdb::resp {
namespace {

TEST(ShutdownGateTest, RefusedUntilTheProcessSaysHowItStops) {
  ShutdownGate gate;
  EXPECT_FALSE(gate.Begin());
  int stops = 0;
  gate.set_stop([&] { ++stops; });
  ASSERT_TRUE(gate.Begin());
  gate.Finish();
  EXPECT_EQ(stops, 1);
}

TEST(ShutdownGateTest, OneShutdownAtATime) {
  ShutdownGate gate;
  gate.set_stop([] {});
  ASSERT_TRUE(gate.Begin());
  EXPECT_FALSE(gate.Begin());
  gate.Cancel();
  EXPECT_TRUE(gate.Begin());
}

TEST(ShutdownGateTest, AbortWithoutAShutdownSaysSo) {
  ShutdownGate gate;
  gate.set_stop([] {});
  EXPECT_FALSE(gate.Abort());
}

TEST(ShutdownGateTest, WaitEndsWhenDone) {
  ShutdownGate gate;
  gate.set_stop([] {});
  ASSERT_TRUE(gate.Begin());
  std::atomic<int> polls{0};
  EXPECT_TRUE(
      gate.Wait([&] { return ++polls >= 3; }, absl::Now() + absl::Seconds(30)));
  EXPECT_GE(polls.load(), 3);
}

TEST(ShutdownGateTest, WaitEndsAtTheDeadlineAndGoesOn) {
  ShutdownGate gate;
  gate.set_stop([] {});
  ASSERT_TRUE(gate.Begin());
  EXPECT_TRUE(
      gate.Wait([] { return false; }, absl::Now() + absl::Milliseconds(30)));
  EXPECT_FALSE(gate.Begin());  // still in progress: the caller stops next
}

TEST(ShutdownGateTest, AbortEndsTheWaitAndTheShutdown) {
  ShutdownGate gate;
  int stops = 0;
  gate.set_stop([&] { ++stops; });
  ASSERT_TRUE(gate.Begin());
  std::thread aborter([&] {
    absl::SleepFor(absl::Milliseconds(20));
    EXPECT_TRUE(gate.Abort());
  });
  EXPECT_FALSE(
      gate.Wait([] { return false; }, absl::Now() + absl::Seconds(30)));
  aborter.join();
  EXPECT_EQ(stops, 0);
  EXPECT_FALSE(gate.Abort());  // over
  EXPECT_TRUE(gate.Begin());   // a new one may begin
}

TEST(ShutdownGateTest, NoAbortOnceTheStopIsHandedOn) {
  ShutdownGate gate;
  gate.set_stop([] {});
  ASSERT_TRUE(gate.Begin());
  gate.Finish();
  EXPECT_FALSE(gate.Abort());
}

TEST(ShutdownGateTest, AbortOnlyWhileWaiting) {
  ShutdownGate gate;
  gate.set_stop([] {});
  ASSERT_TRUE(gate.Begin());
  // Begun, not waiting (flushing, or no replica to wait for): too late.
  EXPECT_FALSE(gate.Abort());
}

TEST(ShutdownGateTest, StopEndsTheWaitAndHandsNothingOn) {
  ShutdownGate gate;
  int stops = 0;
  gate.set_stop([&] { ++stops; });
  ASSERT_TRUE(gate.Begin());
  std::thread stopper([&] {
    absl::SleepFor(absl::Milliseconds(20));
    gate.Stop();
  });
  const absl::Time start = absl::Now();
  EXPECT_TRUE(gate.Wait([] { return false; }, start + absl::Seconds(30)));
  EXPECT_LT(absl::Now() - start, absl::Seconds(10));
  stopper.join();
  gate.Finish();
  EXPECT_EQ(stops, 0);
  gate.Cancel();
  EXPECT_FALSE(gate.Begin());
}

}  // namespace
}  // namespace trackdb::resp
