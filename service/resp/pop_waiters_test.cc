#include "service/resp/pop_waiters.h"

#include <memory>

#include "absl/time/clock.h"
#include "gtest/gtest.h"

namespace trackdb::resp {
namespace {

// Tickets queue per key in the order they were taken; a waiter pops from
// a key only when it is first there, and its leaving wakes the next.
TEST(PopWaitersTest, TicketsAreFirstInLineInTheOrderTaken) {
  PopWaiters waiters;
  constexpr PopWaiters::Kind kList = PopWaiters::Kind::kList;
  auto early = std::make_unique<PopWaiters::Ticket>(
      &waiters, kList, std::vector<std::string>{"q"});
  PopWaiters::Ticket late(&waiters, kList, {"other", "q"});
  PopWaiters::Ticket later(&waiters, kList, {"q"});
  EXPECT_TRUE(early->First("q"));
  EXPECT_FALSE(late.First("q"));
  EXPECT_TRUE(late.First("other"));  // no one came before it there
  EXPECT_FALSE(later.First("q"));
  EXPECT_TRUE(late.First("unwaited"));

  const uint64_t seen = waiters.generation();
  early.reset();
  EXPECT_GT(waiters.generation(), seen);  // the next in line tries again
  EXPECT_TRUE(late.First("q"));
  EXPECT_FALSE(later.First("q"));
}

// A waiter for a list and one for a sorted set on the same key stand in
// lines of their own: the first, skipping a key that holds a sorted set,
// does not hold up the second.
TEST(PopWaitersTest, WaitersOfOneKindDoNotHoldUpTheOther) {
  PopWaiters waiters;
  PopWaiters::Ticket list(&waiters, PopWaiters::Kind::kList, {"k"});
  PopWaiters::Ticket zset(&waiters, PopWaiters::Kind::kZset, {"k"});
  PopWaiters::Ticket later_zset(&waiters, PopWaiters::Kind::kZset, {"k"});
  EXPECT_TRUE(list.First("k"));
  EXPECT_TRUE(zset.First("k"));
  EXPECT_FALSE(later_zset.First("k"));
}

// A push wakes a waiter; the wait ends at its deadline without one.
TEST(PopWaitersTest, PushesWakeOnlyRegisteredWaiters) {
  PopWaiters waiters;
  const uint64_t before = waiters.generation();
  waiters.NotifyPush();  // no one waits: nothing to wake
  EXPECT_EQ(waiters.generation(), before);
  PopWaiters::Ticket ticket(&waiters, PopWaiters::Kind::kList, {"q"});
  const uint64_t seen = waiters.generation();
  waiters.NotifyPush();
  EXPECT_TRUE(waiters.WaitForPush(seen, absl::Now() + absl::Seconds(5)));
  EXPECT_GT(waiters.generation(), seen);
  const absl::Time start = absl::Now();
  EXPECT_TRUE(waiters.WaitForPush(waiters.generation(),
                                  absl::Now() + absl::Milliseconds(50)));
  EXPECT_GE(absl::Now() - start, absl::Milliseconds(40));
  waiters.Stop();
  EXPECT_FALSE(waiters.WaitForPush(waiters.generation(), absl::Now()));
}

}  // namespace
}  // namespace trackdb::resp
