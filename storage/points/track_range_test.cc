#include "storage/points/track_range.h"

#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "storage/store_test_util.h"

namespace trackdb::storage {
namespace {

using ::testing::HasSubstr;

TEST(TrackRangeTest, ReadsEveryPageOfTheRangeOldestFirst) {
  auto store = testing::OpenStore(testing::NewDataDir());
  std::vector<model::TrackPoint> points;
  for (int i = 0; i < 2500; ++i) {
    points.push_back(testing::Point("car", 1000 + i, 40, 116));
  }
  points.push_back(testing::Point("bus", 1500, 40, 116));
  ASSERT_TRUE(store->AddPoints("fleet", points).ok());
  TrackQuery range;
  range.collection = "fleet";
  range.entity = "car";
  range.start_ms = 1100;
  range.end_ms = 3299;
  range.descending = true;  // ignored: always oldest first
  absl::StatusOr<std::vector<model::TrackPoint>> read =
      ReadTrackRange(*store, range, 5000);
  ASSERT_TRUE(read.ok()) << read.status();
  ASSERT_EQ(read->size(), 2200u);
  for (size_t i = 0; i < read->size(); ++i) {
    ASSERT_EQ((*read)[i].loc_time_ms, 1100 + static_cast<int64_t>(i));
    ASSERT_EQ((*read)[i].entity, "");  // left out
  }
  const absl::Status over = ReadTrackRange(*store, range, 2199).status();
  EXPECT_EQ(over.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(over.message(), HasSubstr("more than 2199 fixes"));
  EXPECT_EQ(
      ReadTrackRange(*store, range, 5000, [] { return true; }).status().code(),
      absl::StatusCode::kCancelled);
  range.entity = "nobody";
  EXPECT_TRUE(ReadTrackRange(*store, range, 5000)->empty());
}

}  // namespace
}  // namespace trackdb::storage
