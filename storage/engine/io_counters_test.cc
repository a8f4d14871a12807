#include "storage/engine/io_counters.h"

#include <memory>

#include "gtest/gtest.h"
#include "rocksdb/db.h"
#include "rocksdb/env.h"
#include "storage/store_test_util.h"

namespace trackdb::storage {
namespace {

TEST(IoCountersTest, KindsByName) {
  EXPECT_EQ(FileKindOf("/d/000012.log"), FileKind::kWal);
  EXPECT_EQ(FileKindOf("/d/000013.sst"), FileKind::kSst);
  EXPECT_EQ(FileKindOf("/d/MANIFEST-000004"), FileKind::kOther);
  EXPECT_EQ(FileKindOf("/d/LOG"), FileKind::kOther);
}

TEST(IoCountersTest, CountsWhatRocksDbWritesByKind) {
  auto counters = std::make_shared<IoCounters>();
  std::unique_ptr<rocksdb::Env> env = rocksdb::NewCompositeEnv(
      NewCountingFileSystem(rocksdb::FileSystem::Default(), counters));
  rocksdb::Options options;
  options.create_if_missing = true;
  options.env = env.get();
  rocksdb::DB* raw = nullptr;
  ASSERT_TRUE(
      rocksdb::DB::Open(options, storage::testing::NewDataDir(), &raw).ok());
  std::unique_ptr<rocksdb::DB> db(raw);

  const IoTotals wal_before = counters->Get(FileKind::kWal);
  rocksdb::WriteOptions sync;
  sync.sync = true;
  for (int i = 0; i < 10; ++i) {
    ASSERT_TRUE(db->Put(sync, "key" + std::to_string(i), "value").ok());
  }
  const IoTotals wal = counters->Get(FileKind::kWal);
  // Each synced write is at least one write of its own record.
  EXPECT_GE(wal.write_ops - wal_before.write_ops, 10u);
  EXPECT_GE(wal.write_bytes - wal_before.write_bytes, 10u * 8);
  EXPECT_GE(wal.syncs - wal_before.syncs, 10u);
  EXPECT_EQ(counters->Get(FileKind::kSst).write_bytes, 0u);

  ASSERT_TRUE(db->Flush(rocksdb::FlushOptions()).ok());
  const IoTotals sst = counters->Get(FileKind::kSst);
  EXPECT_GT(sst.write_ops, 0u);
  EXPECT_GT(sst.write_bytes, 100u);
  EXPECT_GT(counters->Get(FileKind::kOther).write_ops, 0u);  // MANIFEST
  const IoTotals total = counters->Total();
  EXPECT_EQ(total.write_bytes, counters->Get(FileKind::kWal).write_bytes +
                                   sst.write_bytes +
                                   counters->Get(FileKind::kOther).write_bytes);
  ASSERT_TRUE(db->Close().ok());
}

}  // namespace
}  // namespace trackdb::storage
