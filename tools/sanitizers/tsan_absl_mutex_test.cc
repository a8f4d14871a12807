// absl::Mutex as ThreadSanitizer sees it under tools/sanitizers/tsan.sh:
// each way of locking, waiting and unlocking orders the accesses it
// guards. Without tsan_absl_mutex.cc (linked into every --config=tsan
// binary) TSan sees none of these locks and reports each plain counter
// below as a data race, failing the test (tsan.sh halts on the first
// report). Outside TSan the same threads check the counts.
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"

namespace {

constexpr int kThreads = 4;
constexpr int kRounds = 200;

template <typename Body>
void OnThreads(Body body) {
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) threads.emplace_back(body, t);
  for (std::thread& t : threads) t.join();
}

TEST(TsanAbslMutexTest, WriterAndReaderLocksOrderAccesses) {
  absl::Mutex mu;
  int count = 0;  // plain: only the mutex orders it
  int backwards = 0;
  OnThreads([&](int) {
    int last = 0;
    for (int i = 0; i < kRounds; ++i) {
      {
        absl::MutexLock l(&mu);
        ++count;
      }
      absl::ReaderMutexLock r(&mu);  // readers only read
      if (count < last) backwards = 1;
      last = count;
    }
  });
  EXPECT_EQ(count, kThreads * kRounds);
  EXPECT_EQ(backwards, 0);
}

TEST(TsanAbslMutexTest, TryLockOrdersAccessesWhenItLocks) {
  absl::Mutex mu;
  int count = 0;
  OnThreads([&](int) {
    for (int i = 0; i < kRounds;) {
      if (!mu.TryLock()) continue;
      ++count;
      ++i;
      mu.Unlock();
    }
  });
  EXPECT_EQ(count, kThreads * kRounds);
}

TEST(TsanAbslMutexTest, AwaitAndLockWhenHandOver) {
  absl::Mutex mu;
  int turn = 0;    // whose turn it is, by thread number
  int passed = 0;  // plain: written by each thread in its turn
  struct MyTurn {
    const int* turn;
    int me;
    bool Now() const { return *turn == me; }
  };
  OnThreads([&](int me) {
    const MyTurn mine{&turn, me};
    for (int i = 0; i < kRounds; ++i) {
      mu.LockWhen(absl::Condition(&mine, &MyTurn::Now));
      ++passed;
      turn = (turn + 1) % kThreads;
      mu.Unlock();
    }
  });
  EXPECT_EQ(passed, kThreads * kRounds);

  bool ready = false;
  int payload = 0;
  std::thread producer([&] {
    payload = 42;
    absl::MutexLock l(&mu);
    ready = true;
  });
  {
    absl::MutexLock l(&mu);
    mu.Await(absl::Condition(&ready));
    EXPECT_EQ(payload, 42);
  }
  producer.join();
}

TEST(TsanAbslMutexTest, CondVarWaitOrdersAccesses) {
  absl::Mutex mu;
  absl::CondVar cv;
  int produced = 0;
  int payload = 0;
  std::thread producer([&] {
    for (int i = 1; i <= kRounds; ++i) {
      absl::MutexLock l(&mu);
      payload = i;
      produced = i;
      cv.Signal();
    }
  });
  {
    absl::MutexLock l(&mu);
    while (produced < kRounds) cv.WaitWithTimeout(&mu, absl::Seconds(10));
    EXPECT_EQ(payload, kRounds);
  }
  producer.join();
}

}  // namespace
