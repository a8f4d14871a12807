// While RocksDB stops writes (a write stall: here L0 at
// level0_stop_writes_trigger with compaction off), a write is refused at
// once with a marked RESOURCE_EXHAUSTED instead of blocking until
// compaction catches up, and reads keep working.

#include <chrono>
#include <future>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "storage/format/disk_error.h"
#include "storage/engine/engine.h"
#include "storage/engine/store_events.h"
#include "storage/store_test_util.h"
#include "storage/track_store.h"

namespace trackdb::storage {
namespace {

using ::testing::HasSubstr;
using testing::NewDataDir;
using testing::Point;

// A store whose `points` column family stops writes at 3 L0 files, which
// nothing compacts away.
std::unique_ptr<TrackStore> OpenStallingStore() {
  v1::StorageConfig config;
  config.set_write_buffer_size_mb(1);
  config.set_level0_file_num_compaction_trigger(1);
  config.set_level0_slowdown_writes_trigger(2);
  config.set_level0_stop_writes_trigger(3);
  config.set_rocksdb_cf_options("compaction_style=kCompactionStyleNone");
  auto store = TrackStore::Open(NewDataDir(), config);
  EXPECT_TRUE(store.ok()) << store.status();
  return store.ok() ? *std::move(store) : nullptr;
}

TEST(WriteStallTest, StoppedWritesAreRefusedAtOnce) {
  std::unique_ptr<TrackStore> store = OpenStallingStore();
  ASSERT_TRUE(store);
  for (int round = 0; round < 3; ++round) {
    std::vector<model::TrackPoint> points;
    for (int i = 0; i < 100; ++i) {
      points.push_back(Point(absl::StrCat("e", i), 1000 + round, 30, 120));
    }
    ASSERT_TRUE(store->AddPoints("fleet", points).ok());
    ASSERT_TRUE(testing::FlushColumnFamily(*store, ColumnFamily::kPoints).ok());
  }
  ASSERT_TRUE(store->options().events->writes_stopped());

  auto write = std::async(std::launch::async, [&store] {
    return store->AddPoints("fleet", {Point("x", 5000, 31, 121)});
  });
  ASSERT_EQ(write.wait_for(std::chrono::seconds(5)), std::future_status::ready)
      << "the write blocked in the stall";
  const absl::Status s = write.get();
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted) << s;
  EXPECT_TRUE(IsWriteStall(s)) << s;
  EXPECT_FALSE(IsDiskError(s)) << s;
  EXPECT_THAT(s.message(), HasSubstr("write stall"));

  auto latest = store->GetLatest("fleet", "e7");
  ASSERT_TRUE(latest.ok()) << latest.status();
  ASSERT_TRUE(latest->has_value());
  EXPECT_EQ((*latest)->loc_time_ms, 1002);
}

}  // namespace
}  // namespace trackdb::storage
