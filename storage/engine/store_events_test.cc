#include "storage/engine/store_events.h"

#include "gtest/gtest.h"

namespace trackdb::storage {
namespace {

using Condition = rocksdb::WriteStallCondition;
using Clock = StoreEvents::Clock;

TEST(StoreEventsTest, FlushesAddUpPerColumnFamily) {
  StoreEvents events;
  events.RecordFlush("points", 1000, 3000);
  events.RecordFlush("points", 3000, 5000);
  events.RecordFlush("geo", 10, 20);
  auto totals = events.Snapshot();
  EXPECT_EQ(totals["points"].flushes, 2u);
  EXPECT_EQ(totals["points"].flush_bytes, 4000u);
  EXPECT_EQ(totals["points"].flush_raw_bytes, 8000u);
  EXPECT_EQ(totals["geo"].flushes, 1u);
}

TEST(StoreEventsTest, StallTimeIsSplitIntoSlowdownAndStop) {
  StoreEvents events;
  const Clock::time_point t0 = Clock::now();
  auto at = [t0](int ms) { return t0 + std::chrono::milliseconds(ms); };
  events.RecordStall("points", Condition::kDelayed, at(0));
  events.RecordStall("points", Condition::kStopped, at(300));
  events.RecordStall("points", Condition::kDelayed, at(1300));
  events.RecordStall("points", Condition::kNormal, at(1500));
  events.RecordStall("geo", Condition::kStopped, at(1000));

  auto totals = events.SnapshotAt(at(2000));
  const CfEventTotals& points = totals["points"];
  EXPECT_EQ(points.slowdowns, 2u);
  EXPECT_EQ(points.stops, 1u);
  EXPECT_NEAR(points.slowdown_seconds, 0.5, 1e-9);
  EXPECT_NEAR(points.stop_seconds, 1.0, 1e-9);
  EXPECT_FALSE(points.slowed_now || points.stopped_now);
  // A stop still in force counts up to the snapshot.
  EXPECT_TRUE(totals["geo"].stopped_now);
  EXPECT_NEAR(totals["geo"].stop_seconds, 1.0, 1e-9);
}

}  // namespace
}  // namespace trackdb::storage
