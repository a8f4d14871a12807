#include "service/resp/dispatch/pop_waiters.h"

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

// A push on a key calls the wake-up of the first waiter in line there, of
// each kind, once; the next in line is woken when the first leaves. A push
// on another key, or a cancelled wake-up, calls none.
TEST(PopWaitersTest, PushesWakeTheFirstInLine) {
  PopWaiters waiters;
  const uint64_t before = waiters.generation();
  waiters.NotifyPush("q");  // no one waits: nothing to do
  EXPECT_EQ(waiters.generation(), before);
  using Kind = PopWaiters::Kind;
  auto first = std::make_unique<PopWaiters::Ticket>(
      &waiters, Kind::kList, std::vector<std::string>{"q"});
  PopWaiters::Ticket second(&waiters, Kind::kList, {"q"});
  PopWaiters::Ticket zset(&waiters, Kind::kZset, {"q"});
  PopWaiters::Ticket elsewhere(&waiters, Kind::kList, {"r"});
  const uint64_t seen = waiters.generation();
  int first_calls = 0, second_calls = 0, zset_calls = 0, elsewhere_calls = 0;
  EXPECT_TRUE(waiters.OnPush(*first, seen, [&] { ++first_calls; }));
  EXPECT_TRUE(waiters.OnPush(second, seen, [&] { ++second_calls; }));
  EXPECT_TRUE(waiters.OnPush(zset, seen, [&] { ++zset_calls; }));
  EXPECT_TRUE(waiters.OnPush(elsewhere, seen, [&] { ++elsewhere_calls; }));
  waiters.Cancel(elsewhere);
  waiters.NotifyPush("r");
  waiters.NotifyPush("unwaited");
  EXPECT_EQ(first_calls + second_calls + zset_calls + elsewhere_calls, 0);
  waiters.NotifyPush("q");
  EXPECT_EQ(first_calls, 1);
  EXPECT_EQ(zset_calls, 1);
  EXPECT_EQ(second_calls, 0);
  waiters.NotifyPush("q");  // the first's wake-up is spent; it is still first
  EXPECT_EQ(first_calls + second_calls + zset_calls, 2);
  first.reset();  // served: the next in line tries
  EXPECT_EQ(second_calls, 1);
  EXPECT_EQ(elsewhere_calls, 0);
}

// A push after the generation a waiter read, before it left its wake-up,
// is not missed: OnPush answers false (try again) without keeping it.
TEST(PopWaitersTest, APushBeforeTheWakeUpIsNotMissed) {
  PopWaiters waiters;
  PopWaiters::Ticket ticket(&waiters, PopWaiters::Kind::kList, {"a", "q"});
  const uint64_t seen = waiters.generation();
  waiters.NotifyPush("q");
  int calls = 0;
  EXPECT_FALSE(waiters.OnPush(ticket, seen, [&] { ++calls; }));
  EXPECT_TRUE(waiters.OnPush(ticket, waiters.generation(), [&] { ++calls; }));
  EXPECT_EQ(calls, 0);
  waiters.NotifyPush("a");
  EXPECT_EQ(calls, 1);
}

// Stop calls every wake-up and turns later ones away.
TEST(PopWaitersTest, StopWakesEveryone) {
  PopWaiters waiters;
  PopWaiters::Ticket first(&waiters, PopWaiters::Kind::kList, {"q"});
  PopWaiters::Ticket second(&waiters, PopWaiters::Kind::kList, {"q"});
  int calls = 0;
  waiters.OnPush(first, waiters.generation(), [&] { ++calls; });
  waiters.OnPush(second, waiters.generation(), [&] { ++calls; });
  EXPECT_FALSE(waiters.stopped());
  waiters.Stop();
  EXPECT_TRUE(waiters.stopped());
  EXPECT_EQ(calls, 2);
  EXPECT_FALSE(waiters.OnPush(first, waiters.generation(), [&] { ++calls; }));
  EXPECT_EQ(calls, 2);
}

}  // namespace
}  // namespace trackdb::resp
