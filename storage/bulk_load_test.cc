#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "storage/engine/engine.h"
#include "storage/store_test_util.h"
#include "storage/track_store.h"

namespace trackdb::storage {
namespace {

using testing::NewDataDir;
using testing::OpenStore;
using testing::Point;

int L0Files(TrackStore& store, rocksdb::ColumnFamilyHandle* cf) {
  std::string v;
  EXPECT_TRUE(
      store.engine().db->GetProperty(cf, "rocksdb.num-files-at-level0", &v));
  return std::stoi(v);
}

// Writes a batch and flushes it: one L0 file in each written column family.
void WriteAndFlush(TrackStore& store, int round) {
  std::vector<model::TrackPoint> batch;
  for (int i = 0; i < 50; ++i) {
    batch.push_back(Point(absl::StrCat("car", i), 1000 + round,
                          39.9 + 0.001 * i, 116.4 + 0.001 * round));
  }
  ASSERT_TRUE(store.AddPoints("fleet", batch).ok());
  rocksdb::FlushOptions flush;
  flush.allow_write_stall = true;
  ASSERT_TRUE(store.engine().db->Flush(flush, store.engine().handles).ok());
}

TEST(BulkLoadTest, OnStopsCompactionOffRestoresAndCompacts) {
  auto store = OpenStore(NewDataDir());
  EXPECT_FALSE(store->bulk_load());
  auto on = store->SetBulkLoad(true);
  ASSERT_TRUE(on.ok()) << on.status();
  EXPECT_FALSE(on->was_on);
  EXPECT_TRUE(store->bulk_load());
  for (rocksdb::ColumnFamilyHandle* cf : store->engine().handles) {
    const rocksdb::ColumnFamilyOptions o = store->engine().db->GetOptions(cf);
    EXPECT_TRUE(o.disable_auto_compactions) << cf->GetName();
    EXPECT_EQ(o.level0_stop_writes_trigger, 1 << 30);
  }
  // Beyond the normal compaction trigger (4): nothing compacts.
  for (int round = 0; round < 6; ++round) WriteAndFlush(*store, round);
  EXPECT_EQ(L0Files(*store, store->engine().points()), 6);

  auto off = store->SetBulkLoad(false);
  ASSERT_TRUE(off.ok()) << off.status();
  EXPECT_TRUE(off->was_on);
  EXPECT_FALSE(store->bulk_load());
  EXPECT_GE(off->l0_files_before, 12);  // points, latest
  EXPECT_EQ(off->l0_files_after, 0);
  EXPECT_GE(off->compaction_seconds, 0);
  EXPECT_EQ(L0Files(*store, store->engine().points()), 0);
  for (rocksdb::ColumnFamilyHandle* cf : store->engine().handles) {
    const rocksdb::ColumnFamilyOptions o = store->engine().db->GetOptions(cf);
    EXPECT_FALSE(o.disable_auto_compactions) << cf->GetName();
    EXPECT_EQ(o.level0_file_num_compaction_trigger, 4);
    EXPECT_EQ(o.level0_stop_writes_trigger, 64);
  }
  // Nothing lost.
  auto latest = store->GetLatest("fleet", "car7");
  ASSERT_TRUE(latest.ok() && latest->has_value());
  EXPECT_EQ((*latest)->loc_time_ms, 1005);
  EXPECT_TRUE(testing::InvariantViolations(*store, "fleet").empty());
}

TEST(BulkLoadTest, ConfiguredOnOpensInBulkLoadModeAndReopensAfterOff) {
  const std::string dir = NewDataDir();
  v1::StorageConfig config;
  config.set_bulk_load(true);
  config.set_write_buffer_size_mb(1);
  config.set_db_write_buffer_size_mb(16);
  {
    auto store = TrackStore::Open(dir, config);
    ASSERT_TRUE(store.ok()) << store.status();
    EXPECT_TRUE((*store)->bulk_load());
    EXPECT_TRUE((*store)
                    ->engine()
                    .db->GetOptions((*store)->engine().latest())
                    .disable_auto_compactions);
    for (int round = 0; round < 5; ++round) WriteAndFlush(**store, round);
    ASSERT_TRUE((*store)->SetBulkLoad(false).ok());
    ASSERT_TRUE((*store)->Close().ok());
  }
  config.set_bulk_load(false);
  auto store = TrackStore::Open(dir, config);
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_FALSE((*store)->bulk_load());
  EXPECT_EQ(L0Files(**store, (*store)->engine().points()), 0);
  auto latest = (*store)->GetLatest("fleet", "car3");
  ASSERT_TRUE(latest.ok() && latest->has_value());
  EXPECT_EQ((*latest)->loc_time_ms, 1004);
}

}  // namespace
}  // namespace trackdb::storage
