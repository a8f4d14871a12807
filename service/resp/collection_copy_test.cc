#include "service/resp/collection_copy.h"

#include <vector>

#include "gtest/gtest.h"
#include "storage/store_test_util.h"

namespace trackdb::resp {
namespace {

using storage::testing::Point;

std::vector<model::TrackPoint> Track(storage::TrackStore& store,
                                     const std::string& collection,
                                     const std::string& entity) {
  storage::TrackQuery q;
  q.collection = collection;
  q.entity = entity;
  q.limit = 100000;
  auto page = store.GetTrack(q);
  EXPECT_TRUE(page.ok()) << page.status();
  return page.ok() ? page->points : std::vector<model::TrackPoint>{};
}

class CollectionCopyTest : public ::testing::TestWithParam<size_t> {};

TEST_P(CollectionCopyTest, CopiesHistoryAndLatestOfEveryEntity) {
  auto store = storage::testing::OpenStore(storage::testing::NewDataDir());
  std::vector<model::TrackPoint> points;
  for (int t = 1; t <= 40; ++t) {
    points.push_back(Point("a", t * 10, 10 + t * 0.01, 20));
  }
  points.push_back(Point("b", 5, -33.9, 151.2));
  // Written out of order: the latest is still the newest point.
  points.push_back(Point("c", 300, 1, 1));
  points.push_back(Point("c", 100, 2, 2));
  points.back().speed_kmh = 12.5;
  points.back().attributes = {{"k", "v"}};
  ASSERT_TRUE(store->AddPoints("src", points).ok());

  ASSERT_TRUE(CopyCollection(*store, "src", "dst", GetParam()).ok());

  EXPECT_EQ(*store->CollectionSize("dst"), 3);
  EXPECT_EQ(*store->CollectionSize("src"), 3);  // unchanged
  for (const char* e : {"a", "b", "c"}) {
    EXPECT_EQ(Track(*store, "dst", e), Track(*store, "src", e)) << e;
    EXPECT_EQ(*store->GetLatest("dst", e), *store->GetLatest("src", e)) << e;
  }
  EXPECT_EQ(Track(*store, "dst", "a").size(), 40u);
  EXPECT_TRUE(storage::testing::InvariantViolations(*store, "dst").empty());
}

// One batch for everything, and batches smaller than one entity's history.
INSTANTIATE_TEST_SUITE_P(BatchSizes, CollectionCopyTest,
                         ::testing::Values(100000, 7, 1));

TEST(CollectionCopyTest, EmptySourceWritesNothing) {
  auto store = storage::testing::OpenStore(storage::testing::NewDataDir());
  ASSERT_TRUE(CopyCollection(*store, "none", "dst").ok());
  EXPECT_EQ(*store->CollectionSize("dst"), 0);
}

}  // namespace
}  // namespace trackdb::resp
