#include "storage/track_store.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "storage/engine/engine.h"
#include "storage/store_test_util.h"

namespace trackdb::storage {
namespace {

using ::testing::HasSubstr;
using testing::InvariantViolations;
using ::testing::IsEmpty;
using testing::NewDataDir;
using testing::OpenStore;
using testing::Point;

class ReopenTest : public ::testing::TestWithParam<v1::Durability> {};

// Enough points to flush several 1 MiB memtables, then a clean close and a
// reopen: every point must still be there, in every durability mode.
TEST_P(ReopenTest, CleanShutdownKeepsEverythingWritten) {
  const std::string dir = NewDataDir();
  constexpr int kEntities = 200, kPointsEach = 100;
  {
    auto store = OpenStore(dir, GetParam());
    ASSERT_NE(store, nullptr);
    for (int t = 0; t < kPointsEach; ++t) {
      std::vector<model::TrackPoint> batch;
      for (int e = 0; e < kEntities; ++e) {
        batch.push_back(Point(absl::StrCat("e", e), t, e * 0.1, t * 0.01));
      }
      ASSERT_TRUE(store->AddPoints("fleet", batch).ok());
    }
    ASSERT_TRUE(store->Close().ok());
  }
  auto store = OpenStore(dir, GetParam());
  ASSERT_NE(store, nullptr);
  for (int e = 0; e < kEntities; ++e) {
    auto latest = store->GetLatest("fleet", absl::StrCat("e", e));
    ASSERT_TRUE(latest.ok() && latest->has_value()) << e;
    EXPECT_EQ((*latest)->loc_time_ms, kPointsEach - 1);
    TrackQuery q{"fleet", absl::StrCat("e", e)};
    q.limit = 1000;
    EXPECT_EQ(store->GetTrack(q)->points.size(), size_t{kPointsEach});
  }
  EXPECT_THAT(InvariantViolations(*store, "fleet"), IsEmpty());
}

INSTANTIATE_TEST_SUITE_P(AllDurabilities, ReopenTest,
                         ::testing::Values(v1::DURABILITY_WAL_OFF,
                                           v1::DURABILITY_WAL,
                                           v1::DURABILITY_WAL_SYNC));

TEST(TrackStoreTest, DestructorClosesCleanly) {
  const std::string dir = NewDataDir();
  {
    auto store = OpenStore(dir, v1::DURABILITY_WAL_OFF);
    ASSERT_TRUE(store->AddPoints("c", {Point("e", 1, 1, 1)}).ok());
  }
  auto store = OpenStore(dir, v1::DURABILITY_WAL_OFF);
  EXPECT_TRUE(store->GetLatest("c", "e")->has_value());
}

// Flush leaves nothing in any memtable and the store open.
TEST(TrackStoreTest, FlushEmptiesTheMemtables) {
  auto store = OpenStore(NewDataDir(), v1::DURABILITY_WAL);
  ASSERT_TRUE(store->AddPoints("c", {Point("e", 1, 1, 1)}).ok());
  const auto in_memtables = [&] {
    uint64_t total = 0;
    for (rocksdb::ColumnFamilyHandle* h : store->engine().handles) {
      uint64_t n = 0;
      store->engine().db->GetIntProperty(
          h, "rocksdb.num-entries-active-mem-table", &n);
      total += n;
    }
    return total;
  };
  ASSERT_GT(in_memtables(), 0u);
  ASSERT_TRUE(store->Flush().ok());
  EXPECT_EQ(in_memtables(), 0u);
  EXPECT_TRUE(store->GetLatest("c", "e")->has_value());
  ASSERT_TRUE(store->Close().ok());
  EXPECT_FALSE(store->Flush().ok());
}

TEST(TrackStoreTest, SecondOpenOfADataDirFailsClearly) {
  const std::string dir = NewDataDir();
  auto first = OpenStore(dir);
  ASSERT_NE(first, nullptr);
  auto second = TrackStore::Open(dir, v1::StorageConfig());
  EXPECT_EQ(second.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(second.status().message(), HasSubstr("in use by another"));
  EXPECT_THAT(second.status().message(), HasSubstr(dir));
}

TEST(TrackStoreTest, CreatesMissingParentDirectories) {
  const std::string dir = NewDataDir() + "/a/b/data";
  auto store = TrackStore::Open(dir, v1::StorageConfig());
  ASSERT_TRUE(store.ok()) << store.status();
}

TEST(TrackStoreTest, UncreatableDataDirFailsClearly) {
  const std::string file = NewDataDir() + "/file";
  std::fclose(std::fopen(file.c_str(), "w"));
  auto store = TrackStore::Open(file + "/data", v1::StorageConfig());
  EXPECT_EQ(store.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(store.status().message(), HasSubstr("cannot create data dir"));
}

TEST(TrackStoreTest, BadRawOptionsRefuseToOpen) {
  v1::StorageConfig c;
  c.set_rocksdb_cf_options("no_such_option=1");
  auto store = TrackStore::Open(NewDataDir(), c);
  EXPECT_EQ(store.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(store.status().message(), HasSubstr("rocksdb_cf_options"));
}

TEST(TrackStoreTest, BulkLoadModeOpensAndWrites) {
  const std::string dir = NewDataDir();
  v1::StorageConfig c;
  c.set_bulk_load(true);
  {
    auto store = TrackStore::Open(dir, c);
    ASSERT_TRUE(store.ok()) << store.status();
    ASSERT_TRUE((*store)->AddPoints("c", {Point("e", 1, 1, 1)}).ok());
  }
  // Reopening the same data in normal mode works (num_levels was kept).
  auto store = OpenStore(dir);
  ASSERT_NE(store, nullptr);
  EXPECT_TRUE(store->GetLatest("c", "e")->has_value());
}

}  // namespace
}  // namespace trackdb::storage
