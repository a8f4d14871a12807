// The folder's thread folds due entities at start and every interval, and
// leaves the others raw.

#include "service/jobs/history_folder.h"

#include <vector>

#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "storage/store_test_util.h"
#include "storage/track_store.h"

namespace trackdb::service {
namespace {

using storage::ColumnFamily;
using storage::testing::Point;
using storage::testing::ReadRaw;

TEST(HistoryFolderTest, FoldsEntitiesWithEnoughFixesEveryInterval) {
  auto store = storage::testing::OpenStore(storage::testing::NewDataDir());
  const int64_t now = absl::ToUnixMillis(absl::Now());
  auto write = [&](const char* entity, int n, int64_t from) {
    std::vector<model::TrackPoint> fixes;
    for (int i = 0; i < n; ++i) fixes.push_back(Point(entity, from + i, 1, 2));
    ASSERT_TRUE(store->AddPoints("fleet", fixes).ok());
  };
  write("busy", 20, now);
  write("quiet", 3, now);  // too few, and recent: stays raw
  storage::FoldOptions options;
  options.min_fixes = 10;
  HistoryFolder folder(store.get(), absl::Milliseconds(50), options);
  const absl::Time deadline = absl::Now() + absl::Seconds(20);
  while (folder.fixes_folded() < 20 && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  EXPECT_EQ(folder.fixes_folded(), 20u);
  write("quiet", 10, now + 100);  // now 13: a later pass folds it
  while (folder.fixes_folded() < 33 && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  EXPECT_EQ(folder.fixes_folded(), 33u);
  EXPECT_THAT(ReadRaw(*store, ColumnFamily::kPoints,
                      storage::EntityPointsPrefix("fleet", "quiet")),
              ::testing::IsEmpty());
  EXPECT_EQ(ReadRaw(*store, ColumnFamily::kChunks).size(), 2u);
}

}  // namespace
}  // namespace trackdb::service
