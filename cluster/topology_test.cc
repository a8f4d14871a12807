#include "cluster/topology.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trackdb::cluster {
namespace {

std::string Id(char c) { return std::string(kNodeIdLength, c); }

std::string ThreeMastersOneSlave() {
  return absl::StrCat(Id('a'), " 127.0.0.1 7001 master - 0-5460\n",  //
                      Id('b'), " 127.0.0.1 7002 master - 5461-10922\n", Id('c'),
                      " 127.0.0.1 7003 master - 10923-16383\n", Id('d'),
                      " 127.0.0.1 7004 slave ", Id('a'), "\n");
}

TEST(TopologyTest, ParsesKvrocksSetNodes) {
  absl::StatusOr<Topology> t = Topology::Parse(ThreeMastersOneSlave());
  ASSERT_TRUE(t.ok()) << t.status();
  ASSERT_EQ(t->nodes().size(), 4u);
  EXPECT_EQ(t->Owner(0), 0);
  EXPECT_EQ(t->Owner(5460), 0);
  EXPECT_EQ(t->Owner(5461), 1);
  EXPECT_EQ(t->Owner(16383), 2);
  EXPECT_EQ(t->Size(), 3);
  EXPECT_EQ(t->AssignedSlots(), 16384);
  EXPECT_THAT(t->ReplicasOf(0), ::testing::ElementsAre(3));
  EXPECT_FALSE(t->nodes()[3].master);
  EXPECT_EQ(t->nodes()[3].master_id, Id('a'));
  EXPECT_EQ(t->Find(Id('c')), 2);
  EXPECT_EQ(t->Find(Id('z')), -1);
}

TEST(TopologyTest, SingleSlotsAndGapsMakeRuns) {
  absl::StatusOr<Topology> t = Topology::Parse(
      absl::StrCat(Id('a'), " h 1 master - 0-9 20 11\n", Id('b'),
                   " h 2 master - 10 12-19\n", Id('c'), " h 3 master -\n"));
  ASSERT_TRUE(t.ok()) << t.status();
  const std::vector<SlotRun> runs = t->Runs();
  ASSERT_EQ(runs.size(), 5u);
  EXPECT_EQ(runs[0].first, 0);
  EXPECT_EQ(runs[0].last, 9);
  EXPECT_EQ(runs[1].owner, 1);  // 10
  EXPECT_EQ(runs[2].owner, 0);  // 11
  EXPECT_EQ(runs[3].first, 12);
  EXPECT_EQ(runs[3].last, 19);
  EXPECT_EQ(runs[4].first, 20);
  EXPECT_EQ(t->Owner(21), -1);
  EXPECT_EQ(t->Size(), 2);
  EXPECT_EQ(t->AssignedSlots(), 21);
  // ToText reads back to the same map.
  absl::StatusOr<Topology> again = Topology::Parse(t->ToText());
  ASSERT_TRUE(again.ok()) << again.status() << t->ToText();
  for (int slot = 0; slot < kSlots; ++slot) {
    ASSERT_EQ(again->Owner(slot), t->Owner(slot)) << slot;
  }
}

TEST(TopologyTest, RefusesWhatKvrocksRefuses) {
  const std::string a = Id('a'), b = Id('b');
  const std::pair<std::string, std::string> cases[] = {
      {"", "Invalid cluster nodes info"},
      {a + " h 1 master", "Invalid cluster nodes info"},
      {"short h 1 master - 0", "Invalid cluster node id"},
      {a + " h 70000 master - 0", "Invalid cluster node port"},
      {a + " h x master - 0", "Invalid cluster node port"},
      {a + " h 1 boss - 0", "Invalid cluster node role"},
      {a + " h 1 master " + b + " 0", "Invalid cluster node id"},
      {a + " h 1 slave -", "Invalid cluster node id"},
      {a + " h 1 slave " + b + " 0", "Invalid cluster nodes info"},
      {a + " h 1 master - 16384", "Slot is out of range"},
      {a + " h 1 master - 5-5", "Slot is out of range"},
      {a + " h 1 master - 9-3", "Slot is out of range"},
      {a + " h 1 master - -1", "Slot is out of range"},
      {a + " h 1 master - 1-2-3", "Slot is out of range"},
      {a + " h 1 master - 0-10\n" + b + " h 2 master - 10",
       "Slot distribution is overlapped"},
      {a + " h 1 master - 0\n" + a + " h 2 master - 1",
       "Invalid cluster nodes info"},
  };
  for (const auto& [text, message] : cases) {
    absl::StatusOr<Topology> t = Topology::Parse(text);
    ASSERT_FALSE(t.ok()) << text;
    EXPECT_EQ(t.status().message(), message) << text;
  }
}

}  // namespace
}  // namespace trackdb::cluster
