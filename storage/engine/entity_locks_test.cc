#include "storage/engine/entity_locks.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"

namespace trackdb::storage {
namespace {

TEST(EntityLocksTest, StripeIsStable) {
  EXPECT_EQ(EntityLocks::StripeOf("c", "e"), EntityLocks::StripeOf("c", "e"));
  EXPECT_LT(EntityLocks::StripeOf("c", "e"), EntityLocks::kStripes);
}

// Threads lock overlapping stripe sets in opposite orders (a deadlock
// without ordering) and bump unguarded counters (a race without exclusion).
TEST(EntityLocksTest, OverlappingSetsAreExclusiveAndDeadlockFree) {
  EntityLocks locks;
  int counters[3] = {0, 0, 0};
  constexpr int kIters = 20000;
  auto worker = [&](std::vector<size_t> stripes) {
    for (int i = 0; i < kIters; ++i) {
      EntityLocks::Held held = locks.Lock(stripes);
      for (size_t s : stripes) ++counters[s];
    }
  };
  std::thread a(worker, std::vector<size_t>{0, 1, 2});
  std::thread b(worker, std::vector<size_t>{2, 1, 0});
  std::thread c(worker, std::vector<size_t>{1, 1, 2});
  a.join();
  b.join();
  c.join();
  EXPECT_EQ(counters[0], 2 * kIters);
  EXPECT_EQ(counters[1], 4 * kIters);  // c lists stripe 1 twice
  EXPECT_EQ(counters[2], 3 * kIters);
}

// A stripe learns how long it is held; a waiter spins at most that long
// (bounded) and then sleeps, so one that waits out a long hold still gets
// the stripe, and holds of both lengths stay exclusive.
TEST(EntityLocksTest, WaitersLearnTheHoldTimeAndStillGetALongHeldStripe) {
  EntityLocks locks;
  EXPECT_EQ(locks.RecentHoldNs(7), 0);
  for (int i = 0; i < 40; ++i) {
    EntityLocks::Held held = locks.Lock({7});
    std::this_thread::sleep_for(std::chrono::microseconds(500));
  }
  EXPECT_GE(locks.RecentHoldNs(7), 400'000);
  EXPECT_EQ(locks.RecentHoldNs(8), 0);

  int in_section = 0;
  int max_in_section = 0;
  std::atomic<int> done{0};
  auto worker = [&](std::chrono::microseconds hold) {
    for (int i = 0; i < 20; ++i) {
      EntityLocks::Held held = locks.Lock({7});
      max_in_section = std::max(max_in_section, ++in_section);
      std::this_thread::sleep_for(hold);
      --in_section;
    }
    ++done;
  };
  // Holds far beyond kMaxSpinNs beside short ones.
  std::thread slow(worker, std::chrono::microseconds(5000));
  std::thread fast(worker, std::chrono::microseconds(1));
  slow.join();
  fast.join();
  EXPECT_EQ(done.load(), 2);
  EXPECT_EQ(max_in_section, 1);
}

// A waiter spins through a pipelined group's hold of a hot key (a group of
// 16 ZADDs holds it 100-200 us) instead of sleeping and losing the key to
// the holder's next turn; a hold far longer puts it to sleep.
TEST(EntityLocksTest, AWaiterSpinsThroughAGroupsHold) {
  for (int64_t hold_us : {1, 50, 100, 150, 200}) {
    EXPECT_GE(EntityLocks::SpinBudgetNs(hold_us * 1000), 2 * hold_us * 1000)
        << hold_us;
  }
  EXPECT_EQ(EntityLocks::SpinBudgetNs(5'000'000), EntityLocks::kMaxSpinNs);
  EXPECT_LE(EntityLocks::kMaxSpinNs, 1'000'000);
}

// Shared holders of a stripe hold it together; an exclusive holder waits
// until the last of them lets go, and keeps new readers out meanwhile.
TEST(EntityLocksTest, SharedHoldersRunSideBySideAndWritersWaitForThem) {
  EntityLocks locks;
  absl::Notification first_holds, second_held, release_first;
  std::thread first([&] {
    EntityLocks::Held held = locks.Lock({3}, /*shared=*/true);
    first_holds.Notify();
    release_first.WaitForNotification();
  });
  first_holds.WaitForNotification();
  std::thread second([&] {
    EntityLocks::Held held = locks.Lock({3, 4}, /*shared=*/true);
    second_held.Notify();
  });
  // Beside the first holder: an exclusive stripe would keep it out.
  EXPECT_TRUE(second_held.WaitForNotificationWithTimeout(absl::Seconds(10)));
  second.join();

  std::atomic<bool> writer_held{false};
  std::thread writer([&] {
    EntityLocks::Held held = locks.Lock({3});
    writer_held = true;
  });
  absl::SleepFor(absl::Milliseconds(50));
  EXPECT_FALSE(writer_held.load());  // the first still reads
  release_first.Notify();
  first.join();
  writer.join();
  EXPECT_TRUE(writer_held.load());
}

// One call holding some stripes exclusively and others shared: readers of
// the shared one run beside it, writers of either wait, and a stripe named
// in both is held exclusively.
TEST(EntityLocksTest, MixedHoldIsSharedWhereAskedAndExclusiveElsewhere) {
  EntityLocks locks;
  absl::Notification mixed_holds, release_mixed, reader_held;
  std::thread mixed([&] {
    EntityLocks::Held held = locks.Lock({1, 2}, {5, 2});
    mixed_holds.Notify();
    release_mixed.WaitForNotification();
  });
  mixed_holds.WaitForNotification();
  std::thread reader([&] {
    EntityLocks::Held held = locks.Lock({5}, /*shared=*/true);
    reader_held.Notify();
  });
  EXPECT_TRUE(reader_held.WaitForNotificationWithTimeout(absl::Seconds(10)));
  reader.join();

  std::atomic<int> held_by_others{0};
  std::vector<std::thread> waiters;
  waiters.emplace_back([&] {
    EntityLocks::Held held = locks.Lock({5});  // a writer of the shared one
    ++held_by_others;
  });
  waiters.emplace_back([&] {
    EntityLocks::Held held = locks.Lock({2}, /*shared=*/true);  // in both
    ++held_by_others;
  });
  waiters.emplace_back([&] {
    EntityLocks::Held held = locks.Lock({1}, /*shared=*/true);
    ++held_by_others;
  });
  absl::SleepFor(absl::Milliseconds(50));
  EXPECT_EQ(held_by_others.load(), 0);
  release_mixed.Notify();
  mixed.join();
  for (std::thread& w : waiters) w.join();
  EXPECT_EQ(held_by_others.load(), 3);
}

}  // namespace
}  // namespace trackdb::storage
