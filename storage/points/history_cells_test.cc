#include "storage/points/history_cells.h"

#include <cstdint>
#include <limits>
#include <string>

#include "gtest/gtest.h"
#include "index/covering.h"
#include "storage/format/keys.h"

namespace trackdb::storage {
namespace {

TEST(HistoryBucketTest, FloorsNegativeTimesAndBoundsEachBucket) {
  EXPECT_EQ(HistoryBucketOf(0), 0);
  EXPECT_EQ(HistoryBucketOf(kHistoryBucketMs - 1), 0);
  EXPECT_EQ(HistoryBucketOf(kHistoryBucketMs), 1);
  EXPECT_EQ(HistoryBucketOf(-1), -1);
  EXPECT_EQ(HistoryBucketOf(-kHistoryBucketMs), -1);
  EXPECT_EQ(HistoryBucketOf(-kHistoryBucketMs - 1), -2);
  for (int64_t t : {int64_t{-5'000'000}, int64_t{-1}, int64_t{0},
                    int64_t{1'700'000'000'123}}) {
    const int64_t b = HistoryBucketOf(t);
    EXPECT_LE(HistoryBucketFirstMs(b), t);
    EXPECT_GE(HistoryBucketLastMs(b), t);
    EXPECT_EQ(HistoryBucketLastMs(b) + 1, HistoryBucketFirstMs(b + 1));
  }
  const int64_t max = std::numeric_limits<int64_t>::max();
  const int64_t min = std::numeric_limits<int64_t>::min();
  EXPECT_EQ(HistoryBucketLastMs(HistoryBucketOf(max)), max);
  EXPECT_EQ(HistoryBucketFirstMs(HistoryBucketOf(min)), min);
}

TEST(HistoryCellTest, IsTheLevelThirteenCellOfTheFix) {
  const HistoryCell c = HistoryCellOf(2 * kHistoryBucketMs + 5, 52.52, 13.405);
  EXPECT_EQ(c.bucket, 2);
  EXPECT_EQ(c.cell, index::CellIdAtLevel({52.52, 13.405}, kHistoryCellLevel));
  // 100 m away: the same cell, most likely; 5 km away: another one.
  EXPECT_NE(c.cell, HistoryCellOf(2 * kHistoryBucketMs, 52.565, 13.405).cell);
  EXPECT_NE(c, HistoryCellOf(3 * kHistoryBucketMs, 52.52, 13.405));
}

TEST(HistoryCellKeyTest, SortsAfterEveryEntityAndRoundTrips) {
  const std::string key = HistoryCellKey("fleet", -3, 0x1234, "truck 7");
  const std::string prefix = HistoryCellsPrefix("fleet");
  ASSERT_EQ(key.compare(0, prefix.size(), prefix), 0);
  auto parts =
      ParseHistoryCellSuffix(absl::string_view(key).substr(prefix.size()));
  ASSERT_TRUE(parts.has_value());
  EXPECT_EQ(parts->bucket, -3);
  EXPECT_EQ(parts->cell, 0x1234u);
  EXPECT_EQ(parts->entity, "truck 7");
  // Buckets sort numerically, negative ones first.
  EXPECT_LT(HistoryCellSeekKey("fleet", -3, 0),
            HistoryCellSeekKey("fleet", 2, 0));
  // After the history of the longest entity name, and within the collection.
  const std::string longest(1024, '\xff');
  EXPECT_GT(prefix, PointKey("fleet", longest, INT64_MAX));
  EXPECT_GT(prefix, EntityPointsPrefix("fleet", "") + std::string(9, '\xff'));
  EXPECT_LT(key, PrefixEnd(CollectionPrefix("fleet")));
  EXPECT_FALSE(ParseHistoryCellSuffix("short").has_value());
}

}  // namespace
}  // namespace trackdb::storage
