#include "storage/stats/store_stats.h"

#include <random>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "storage/engine/engine.h"
#include "storage/format/keys.h"
#include "storage/store_test_util.h"
#include "storage/track_store.h"

namespace trackdb::storage {
namespace {

using ::testing::HasSubstr;
using testing::NewDataDir;
using testing::OpenStore;
using testing::Point;
using ::testing::StartsWith;

void WritePoints(TrackStore& store, int n, int64_t t0) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> d(-0.1, 0.1);
  std::vector<model::TrackPoint> batch;
  for (int i = 0; i < n; ++i) {
    batch.push_back(Point(absl::StrCat("car", i % 500), t0 + i, 39.9 + d(rng),
                          116.4 + d(rng)));
    if (batch.size() == 100) {
      ASSERT_TRUE(store.AddPoints("fleet", batch).ok());
      batch.clear();
    }
  }
  if (!batch.empty()) {
    ASSERT_TRUE(store.AddPoints("fleet", batch).ok());
  }
}

TEST(StoreStatsTest, ReadsWritesFlushesCacheAndOptions) {
  auto store = OpenStore(NewDataDir());
  WritePoints(*store, 2000, 1000);
  ASSERT_TRUE(store->engine()
                  .db->Flush(rocksdb::FlushOptions(), store->engine().points())
                  .ok());
  for (int i = 0; i < 50; ++i) {
    ASSERT_TRUE(store->GetLatest("fleet", absl::StrCat("car", i)).ok());
  }
  const StoreStats s = ReadStoreStats(*store);

  EXPECT_EQ(s.memory_budget_bytes, 1024u << 20);
  EXPECT_EQ(s.memtable_budget_bytes, 16u << 20);  // OpenStore's
  EXPECT_EQ(s.block_cache_capacity_bytes, (8u + 16u) << 20);
  EXPECT_GT(s.block_cache_usage_bytes, 0u);
  EXPECT_GT(s.block_cache_hits + s.block_cache_misses, 0u);
  EXPECT_GT(s.process_rss_bytes, 0u);
  EXPECT_FALSE(s.bulk_load);
  // The latest index of the points' entities, charged to the cache.
  EXPECT_GT(s.latest_index_bytes, 0u);
  EXPECT_GE(s.block_cache_usage_bytes, s.latest_index_bytes);
  // 2000 points: history and latest each.
  EXPECT_GE(s.user_keys_written, 2000u * 2);
  EXPECT_GT(s.user_bytes_written, 2000u * 30);
  EXPECT_GT(s.wal_writes.ops, 0u);
  EXPECT_GE(s.wal_writes.bytes, s.user_bytes_written);
  EXPECT_GT(s.sst_writes.bytes, 0u);
  EXPECT_GT(s.write_amplification(), 1.0);

  ASSERT_EQ(s.column_families.size(), kColumnFamilyCount);
  const CfStats* points = s.cf(kPointsCf);
  ASSERT_NE(points, nullptr);
  EXPECT_EQ(points->flushes, 1u);
  EXPECT_GT(points->flush_bytes, 1000u);
  EXPECT_GT(points->flush_raw_bytes, points->flush_bytes / 2);
  EXPECT_EQ(points->l0_files, 1);
  EXPECT_GT(points->l0_bytes, 0u);
  EXPECT_EQ(points->write_buffer_size, 1u << 20);
  EXPECT_EQ(points->level0_slowdown_writes_trigger, 40);
  EXPECT_FALSE(points->disable_auto_compactions);
  EXPECT_EQ(points->memtable_bytes, s.cf(kPointsCf)->memtable_bytes);
  EXPECT_GT(s.cf(kLatestCf)->memtable_bytes, 0u);  // not flushed
  EXPECT_EQ(s.flushes(), 1u);
  EXPECT_EQ(s.l0_files(), 1);
}

// Each SST file counts the fixes it holds: raw ones in points (the history
// cells left out), those inside chunks; bytes a fix follows.
TEST(StoreStatsTest, HistoryFixesAndBytesAFixFromTheFiles) {
  auto store = OpenStore(NewDataDir());
  WritePoints(*store, 2000, 1000);  // 500 entities, 4 fixes each
  ASSERT_TRUE(testing::FlushAndCompact(*store, ColumnFamily::kPoints).ok());
  StoreStats s = ReadStoreStats(*store);
  EXPECT_EQ(s.cf(kPointsCf)->history_fixes, 2000u);
  EXPECT_EQ(s.cf(kChunksCf)->history_fixes, 0u);
  EXPECT_EQ(s.cf(kLatestCf)->history_fixes, 0u);
  // The files' blocks: within a few per cent of their sizes.
  EXPECT_NEAR(s.history_bytes_per_fix(),
              1.0 * s.cf(kPointsCf)->live_sst_bytes / 2000,
              0.05 * s.cf(kPointsCf)->live_sst_bytes / 2000);
  // Half the entities folded: their fixes move to chunks.
  for (int i = 0; i < 250; ++i) {
    ASSERT_TRUE(store->chunker()
                    .FoldEntity("fleet", absl::StrCat("car", i), FoldOptions())
                    .ok());
  }
  ASSERT_TRUE(testing::FlushAndCompact(*store, ColumnFamily::kPoints).ok());
  ASSERT_TRUE(testing::FlushAndCompact(*store, ColumnFamily::kChunks).ok());
  s = ReadStoreStats(*store);
  EXPECT_EQ(s.cf(kPointsCf)->history_fixes, 1000u);
  EXPECT_EQ(s.cf(kChunksCf)->history_fixes, 1000u);
  const double live = s.cf(kPointsCf)->live_sst_bytes +
                      s.cf(kChunksCf)->live_sst_bytes;
  EXPECT_NEAR(s.history_bytes_per_fix(), live / 2000, 0.05 * live / 2000);
}

TEST(StoreStatsTest, SamplerGivesRatesOverTheInterval) {
  auto store = OpenStore(NewDataDir());
  StatsSampler sampler;
  const StoreStats first = sampler.Sample(*store);
  EXPECT_EQ(first.rate_interval_seconds, 0);
  EXPECT_EQ(first.disk_write_bytes_per_second, 0);
  WritePoints(*store, 1000, 1000);
  const StoreStats second = sampler.Sample(*store);
  ASSERT_GT(second.rate_interval_seconds, 0);
  const double bytes = second.disk_writes().bytes - first.disk_writes().bytes;
  EXPECT_GT(bytes, 0);
  EXPECT_NEAR(second.disk_write_bytes_per_second,
              bytes / second.rate_interval_seconds, 1e-6);
  EXPECT_GT(second.disk_writes_per_second, 0);
  EXPECT_GT(second.user_bytes_per_second, 0);
}

}  // namespace
}  // namespace trackdb::storage
