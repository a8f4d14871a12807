// The store's activity counters (the metrics port's points, fence events,
// searches and entities): each moves when its event happens, and only
// then.

#include "fence/fence_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "index/region.h"
#include "storage/store_test_util.h"
#include "storage/track_store.h"

namespace trackdb::storage {
namespace {

using testing::OpenStore;
using testing::Point;

TEST(ActivityTest, PointsCountOnlyWhatIsWritten) {
  auto store = OpenStore(testing::NewDataDir());
  ASSERT_TRUE(store
                  ->AddPoints("fleet", {Point("a", 1000, 40, 116),
                                        Point("a", 2000, 40, 116.001),
                                        Point("b", 1000, 41, 116)})
                  .ok());
  EXPECT_EQ(store->activity().points_written, 3u);
  EXPECT_EQ(store->EntityCount(), 2);
  // NX skips the existing entity's points: not written, not counted.
  AddPointsOptions nx;
  nx.only = AddPointsOptions::Only::kNewEntities;
  ASSERT_TRUE(store
                  ->AddPoints("fleet",
                              {Point("a", 3000, 40, 116), Point("c", 1, 1, 1)},
                              nx)
                  .ok());
  EXPECT_EQ(store->activity().points_written, 4u);
  EXPECT_EQ(store->EntityCount(), 3);
  // A refused write counts nothing.
  EXPECT_FALSE(store->AddPoints("fleet", {Point("d", 1, 95, 1)}).ok());
  EXPECT_EQ(store->activity().points_written, 4u);
  ASSERT_TRUE(store->DeleteEntity("fleet", "b").ok());
  EXPECT_EQ(store->EntityCount(), 2);
  ASSERT_TRUE(store->DeleteCollection("fleet").ok());
  EXPECT_EQ(store->EntityCount(), 0);
}

TEST(ActivityTest, FenceEventsCountWhenCommitted) {
  auto store = OpenStore(testing::NewDataDir());
  ASSERT_TRUE(
      store->fences().Put(fence::testing::CircleFence(40, 116, 500)).ok());
  ASSERT_TRUE(store->AddPoints("fleet", {Point("t1", 1000, 40.01, 116)}).ok());
  const uint64_t before = store->activity().fence_events;
  ASSERT_TRUE(store->AddPoints("fleet", {Point("t1", 2000, 40, 116)}).ok());
  EXPECT_GT(store->activity().fence_events, before);
  auto page = store->fences().ReadEvents("fleet", 1, 1000);
  ASSERT_TRUE(page.ok());
  EXPECT_EQ(store->activity().fence_events, page->events.size());
}

TEST(ActivityTest, SearchesCountEachCall) {
  auto store = OpenStore(testing::NewDataDir());
  ASSERT_TRUE(store->AddPoints("fleet", {Point("a", 1000, 40, 116)}).ok());
  auto circle = index::CircleRegion::Create({40, 116}, 1000);
  ASSERT_TRUE(circle.ok());
  int hits = 0;
  ASSERT_TRUE(store
                  ->ScanRegion("fleet", *circle,
                               [&](const model::TrackPoint&) {
                                 ++hits;
                                 return true;
                               })
                  .ok());
  EXPECT_EQ(hits, 1);
  EXPECT_EQ(store->activity().region_scans, 1u);
  EXPECT_EQ(store->activity().history_searches, 0u);
  HistoryQuery q;
  q.collection = "fleet";
  q.region = &*circle;
  ASSERT_TRUE(store->SearchHistory(q).ok());
  EXPECT_EQ(store->activity().history_searches, 1u);
  EXPECT_EQ(store->activity().region_scans, 1u);
}

}  // namespace
}  // namespace trackdb::storage
