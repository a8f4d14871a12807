#include "storage/entity_locks.h"

#include <thread>

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

}  // namespace
}  // namespace trackdb::storage
