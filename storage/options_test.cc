#include "storage/options.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "rocksdb/table.h"
#include "storage/keys.h"

namespace trackdb::storage {
namespace {

using ::testing::HasSubstr;

const rocksdb::ColumnFamilyOptions& Cf(const StoreOptions& o,
                                       const std::string& name) {
  for (const auto& cf : o.column_families) {
    if (cf.name == name) return cf.options;
  }
  ADD_FAILURE() << "no column family " << name;
  return o.column_families[0].options;
}

TEST(StoreOptionsTest, DefaultsAreTrackdbs) {
  auto o = BuildStoreOptions(v1::StorageConfig());
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->db.max_background_jobs, 4);
  EXPECT_EQ(o->db.db_write_buffer_size, 512u << 20);
  EXPECT_TRUE(o->db.create_if_missing);
  ASSERT_EQ(o->column_families.size(), 5u);
  for (const char* name : {kPointsCf, kLatestCf, kGeoCf, kKvCf}) {
    const auto& cf = Cf(*o, name);
    EXPECT_EQ(cf.write_buffer_size, 64u << 20) << name;
    EXPECT_EQ(cf.max_write_buffer_number, 4);
    EXPECT_EQ(cf.level0_file_num_compaction_trigger, 4);
    EXPECT_EQ(cf.level0_slowdown_writes_trigger, 40);
    EXPECT_EQ(cf.level0_stop_writes_trigger, 64);
    EXPECT_EQ(cf.compression, rocksdb::kLZ4Compression);
    EXPECT_FALSE(cf.disable_auto_compactions);
  }
  EXPECT_FALSE(o->write.disableWAL);
  EXPECT_FALSE(o->write.sync);
}

TEST(StoreOptionsTest, OneBlockCacheSharedByAllColumnFamilies) {
  v1::StorageConfig c;
  c.set_block_cache_size_mb(32);
  auto o = BuildStoreOptions(c);
  ASSERT_TRUE(o.ok());
  const rocksdb::Cache* first = nullptr;
  for (const auto& cf : o->column_families) {
    const auto* t =
        cf.options.table_factory->GetOptions<rocksdb::BlockBasedTableOptions>();
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(t->block_cache->GetCapacity(), 32u << 20);
    EXPECT_TRUE(t->cache_index_and_filter_blocks);
    if (!first) first = t->block_cache.get();
    EXPECT_EQ(t->block_cache.get(), first) << cf.name;
  }
}

TEST(StoreOptionsTest, DurabilityModes) {
  v1::StorageConfig c;
  c.set_durability(v1::DURABILITY_WAL_OFF);
  EXPECT_TRUE(BuildStoreOptions(c)->write.disableWAL);
  c.set_durability(v1::DURABILITY_WAL_SYNC);
  EXPECT_TRUE(BuildStoreOptions(c)->write.sync);
  EXPECT_FALSE(BuildStoreOptions(c)->write.disableWAL);
}

TEST(StoreOptionsTest, TypedKnobsApply) {
  v1::StorageConfig c;
  c.set_write_buffer_size_mb(8);
  c.set_max_background_jobs(7);
  c.set_level0_slowdown_writes_trigger(100);
  c.set_level0_stop_writes_trigger(200);
  c.set_compression(v1::COMPRESSION_NONE);
  auto o = BuildStoreOptions(c);
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->db.max_background_jobs, 7);
  EXPECT_EQ(Cf(*o, kPointsCf).write_buffer_size, 8u << 20);
  EXPECT_EQ(Cf(*o, kGeoCf).level0_stop_writes_trigger, 200);
  EXPECT_EQ(Cf(*o, kGeoCf).compression, rocksdb::kNoCompression);
}

TEST(StoreOptionsTest, RawStringsApplyLastAndBadOnesNameTheField) {
  v1::StorageConfig c;
  c.set_rocksdb_db_options("max_open_files=123;max_background_jobs=9");
  c.set_rocksdb_cf_options("target_file_size_base=1048576");
  auto o = BuildStoreOptions(c);
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->db.max_open_files, 123);
  EXPECT_EQ(o->db.max_background_jobs, 9);
  EXPECT_EQ(Cf(*o, kPointsCf).target_file_size_base, 1048576u);

  c.set_rocksdb_db_options("max_open_filez=1");
  EXPECT_THAT(BuildStoreOptions(c).status().message(),
              HasSubstr("storage.rocksdb_db_options"));
  c.clear_rocksdb_db_options();
  c.set_rocksdb_cf_options("write_buffer_size=lots");
  EXPECT_THAT(BuildStoreOptions(c).status().message(),
              HasSubstr("storage.rocksdb_cf_options"));
}

TEST(StoreOptionsTest, BulkLoadDisablesCompactionButKeepsLevels) {
  v1::StorageConfig c;
  c.set_bulk_load(true);
  auto o = BuildStoreOptions(c);
  ASSERT_TRUE(o.ok());
  const auto& cf = Cf(*o, kPointsCf);
  EXPECT_TRUE(cf.disable_auto_compactions);
  EXPECT_GT(cf.level0_stop_writes_trigger, 1000);
  EXPECT_EQ(cf.num_levels, rocksdb::ColumnFamilyOptions().num_levels);
}

TEST(StoreOptionsTest, DescribeNamesEveryColumnFamily) {
  auto o = BuildStoreOptions(v1::StorageConfig());
  const std::string text = DescribeOptions(*o);
  for (const char* name : {"default", kPointsCf, kLatestCf, kGeoCf, kKvCf}) {
    EXPECT_THAT(text, HasSubstr(std::string("rocksdb cf ") + name + ":"));
  }
  EXPECT_THAT(text, HasSubstr("write_buffer_size=64MiB"));
  EXPECT_THAT(text, HasSubstr("block_cache=256MiB"));
}

}  // namespace
}  // namespace trackdb::storage
