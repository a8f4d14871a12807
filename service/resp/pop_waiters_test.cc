#include "service/resp/pop_waiters.h"

#include <memory>
#include <string>
#include <vector>

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

// A push on a waited key calls the wake-ups left on it, once each; one on
// another key, or a cancelled wake-up, calls none.
TEST(PopWaitersTest, PushesWakeOnlyTheirKeysWaiters) {
  PopWaiters waiters;
  const uint64_t before = waiters.generation();
  waiters.NotifyPush("q");  // no one waits: nothing to do
  EXPECT_EQ(waiters.generation(), before);
  PopWaiters::Ticket on_q(&waiters, PopWaiters::Kind::kList, {"q"});
  PopWaiters::Ticket on_r(&waiters, PopWaiters::Kind::kZset, {"r", "q"});
  const uint64_t seen = waiters.generation();
  int q_calls = 0, r_calls = 0, cancelled_calls = 0;
  EXPECT_NE(waiters.OnPush(seen, on_q.names(), [&] { ++q_calls; }), 0u);
  EXPECT_NE(waiters.OnPush(seen, on_r.names(), [&] { ++r_calls; }), 0u);
  const uint64_t cancelled =
      waiters.OnPush(seen, on_r.names(), [&] { ++cancelled_calls; });
  waiters.Cancel(cancelled);
  waiters.NotifyPush("elsewhere");
  EXPECT_EQ(q_calls + r_calls, 0);
  waiters.NotifyPush("r");
  EXPECT_EQ(q_calls, 0);
  EXPECT_EQ(r_calls, 1);
  waiters.NotifyPush("q");
  waiters.NotifyPush("q");
  EXPECT_EQ(q_calls, 1);
  EXPECT_EQ(r_calls, 1);
  EXPECT_EQ(cancelled_calls, 0);
}

// A push after the generation a waiter read, before it left its wake-up,
// is not missed: OnPush answers 0 (try again) without keeping the wake-up.
TEST(PopWaitersTest, APushBeforeTheWakeUpIsNotMissed) {
  PopWaiters waiters;
  PopWaiters::Ticket ticket(&waiters, PopWaiters::Kind::kList, {"a", "q"});
  const uint64_t seen = waiters.generation();
  waiters.NotifyPush("q");
  int calls = 0;
  EXPECT_EQ(waiters.OnPush(seen, ticket.names(), [&] { ++calls; }), 0u);
  EXPECT_NE(
      waiters.OnPush(waiters.generation(), ticket.names(), [&] { ++calls; }),
      0u);
  EXPECT_EQ(calls, 0);
}

// A waiter leaving wakes those behind it on its keys; Stop wakes everyone
// and turns later wake-ups away.
TEST(PopWaitersTest, LeavingAndStoppingWake) {
  PopWaiters waiters;
  auto first = std::make_unique<PopWaiters::Ticket>(
      &waiters, PopWaiters::Kind::kList, std::vector<std::string>{"q"});
  PopWaiters::Ticket second(&waiters, PopWaiters::Kind::kList, {"q"});
  PopWaiters::Ticket other(&waiters, PopWaiters::Kind::kList, {"z"});
  int second_calls = 0, other_calls = 0;
  waiters.OnPush(waiters.generation(), second.names(), [&] { ++second_calls; });
  waiters.OnPush(waiters.generation(), other.names(), [&] { ++other_calls; });
  first.reset();
  EXPECT_EQ(second_calls, 1);
  EXPECT_EQ(other_calls, 0);
  EXPECT_FALSE(waiters.stopped());
  waiters.Stop();
  EXPECT_TRUE(waiters.stopped());
  EXPECT_EQ(other_calls, 1);
  EXPECT_EQ(waiters.OnPush(waiters.generation(), other.names(),
                           [&] { ++other_calls; }),
            0u);
  EXPECT_EQ(other_calls, 1);
}

}  // namespace
}  // namespace trackdb::resp
