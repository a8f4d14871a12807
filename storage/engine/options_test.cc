#include "storage/engine/options.h"

#include <algorithm>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "rocksdb/convenience.h"
#include "rocksdb/table.h"
#include "storage/format/keys.h"

namespace trackdb::storage {
namespace {

using ::testing::AllOf;
using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

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
  EXPECT_EQ(o->db.db_write_buffer_size, 448u << 20);
  EXPECT_TRUE(o->db.create_if_missing);
  EXPECT_FALSE(o->db.enable_pipelined_write);  // replication needs it off
  v1::StorageConfig pipelined;
  pipelined.set_rocksdb_db_options("enable_pipelined_write=true");
  EXPECT_THAT(BuildStoreOptions(pipelined).status().message(),
              ::testing::HasSubstr("enable_pipelined_write=true is refused"));
  ASSERT_EQ(o->column_families.size(), 7u);
  for (const char* name : {kPointsCf, kLatestCf, kKvCf, kFencesCf, kTypesCf}) {
    const auto& cf = Cf(*o, name);
    EXPECT_EQ(cf.write_buffer_size, 8u << 20) << name;
    EXPECT_EQ(cf.max_write_buffer_number, 4);
    EXPECT_EQ(cf.level0_file_num_compaction_trigger, 4);
    EXPECT_EQ(cf.level0_slowdown_writes_trigger, 40);
    EXPECT_EQ(cf.level0_stop_writes_trigger, 64);
    EXPECT_EQ(cf.compression, rocksdb::kLZ4Compression);
    EXPECT_FALSE(cf.disable_auto_compactions);
  }
  // Chunks: ZSTD where this RocksDB has it, and retention's filter.
  const auto& chunks = Cf(*o, kChunksCf);
  EXPECT_EQ(chunks.write_buffer_size, 8u << 20);
  const auto supported = rocksdb::GetSupportedCompressions();
  EXPECT_EQ(chunks.compression, std::find(supported.begin(), supported.end(),
                                          rocksdb::kZSTD) != supported.end()
                                    ? rocksdb::kZSTD
                                    : rocksdb::kLZ4Compression);
  EXPECT_NE(chunks.compaction_filter_factory, nullptr);
  EXPECT_FALSE(o->write.disableWAL);
  EXPECT_FALSE(o->write.sync);
}

TEST(StoreOptionsTest, OneBlockCacheSharedByAllColumnFamilies) {
  v1::StorageConfig c;
  c.set_block_cache_size_mb(32);
  c.set_db_write_buffer_size_mb(64);
  auto o = BuildStoreOptions(c);
  ASSERT_TRUE(o.ok());
  const rocksdb::Cache* first = nullptr;
  for (const auto& cf : o->column_families) {
    const auto* t =
        cf.options.table_factory->GetOptions<rocksdb::BlockBasedTableOptions>();
    ASSERT_NE(t, nullptr);
    // Blocks plus the memtables charged to it.
    EXPECT_EQ(t->block_cache->GetCapacity(), (32u + 64u) << 20);
    EXPECT_FALSE(t->block_cache->HasStrictCapacityLimit());
    EXPECT_TRUE(t->cache_index_and_filter_blocks);
    if (!first) first = t->block_cache.get();
    EXPECT_EQ(t->block_cache.get(), first) << cf.name;
  }
  EXPECT_EQ(o->block_cache.get(), first);
}

TEST(StoreOptionsTest, MemtablesAreChargedToTheBlockCache) {
  v1::StorageConfig c;
  c.set_memory_budget_mb(256);
  auto o = BuildStoreOptions(c);
  ASSERT_TRUE(o.ok());
  ASSERT_NE(o->db.write_buffer_manager, nullptr);
  EXPECT_EQ(o->db.write_buffer_manager->buffer_size(), 96u << 20);
  EXPECT_TRUE(o->db.write_buffer_manager->cost_to_cache());
  // The cache's capacity is RocksDB's whole share of the budget.
  EXPECT_EQ(o->block_cache->GetCapacity(), 192u << 20);
  EXPECT_EQ(Cf(*o, kPointsCf).write_buffer_size, 8u << 20);

  // A raw db_write_buffer_size override reaches the manager too.
  c.set_rocksdb_db_options("db_write_buffer_size=1048576");
  o = BuildStoreOptions(c);
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->db.write_buffer_manager->buffer_size(), 1u << 20);

  // No memtable total: no manager, the cache is the block cache alone.
  c.clear_rocksdb_db_options();
  c.set_db_write_buffer_size_mb(0);
  o = BuildStoreOptions(c);
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->db.write_buffer_manager, nullptr);
  EXPECT_EQ(o->block_cache->GetCapacity(), 192u << 20);
}

TEST(StoreOptionsTest, ObserversAreInstalled) {
  auto o = BuildStoreOptions(v1::StorageConfig());
  ASSERT_TRUE(o.ok());
  EXPECT_NE(o->db.statistics, nullptr);
  ASSERT_EQ(o->db.listeners.size(), 1u);
  EXPECT_EQ(o->db.listeners[0].get(), o->events.get());
  EXPECT_EQ(o->db.env, o->env.get());
  EXPECT_NE(o->io, nullptr);
  EXPECT_EQ(o->config.memory_budget_mb(), 1024u);
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
  EXPECT_EQ(Cf(*o, kLatestCf).level0_stop_writes_trigger, 200);
  EXPECT_EQ(Cf(*o, kLatestCf).compression, rocksdb::kNoCompression);
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

TEST(StoreOptionsTest, BulkLoadIsSwitchedLiveNotBuiltIn) {
  v1::StorageConfig c;
  c.set_bulk_load(true);
  auto o = BuildStoreOptions(c);
  ASSERT_TRUE(o.ok());
  // The options are the steady state; TrackStore::Open switches the mode on.
  const auto& cf = Cf(*o, kPointsCf);
  EXPECT_FALSE(cf.disable_auto_compactions);
  EXPECT_EQ(cf.level0_stop_writes_trigger, 64);
  EXPECT_TRUE(o->config.bulk_load());

  auto bulk = BulkLoadCfOptions();
  EXPECT_EQ(bulk["disable_auto_compactions"], "true");
  EXPECT_EQ(bulk["level0_stop_writes_trigger"], std::to_string(1 << 30));
  EXPECT_EQ(bulk.count("num_levels"), 0u);  // would break reopening
  auto steady = SteadyCfOptions(cf);
  EXPECT_EQ(steady["disable_auto_compactions"], "false");
  EXPECT_EQ(steady["level0_stop_writes_trigger"], "64");
  // Every key switched on is switched back.
  for (const auto& [key, value] : bulk) EXPECT_EQ(steady.count(key), 1u) << key;
}

TEST(StoreOptionsTest, DescribeNamesEveryColumnFamily) {
  auto o = BuildStoreOptions(v1::StorageConfig());
  const std::string text = DescribeOptions(*o);
  for (const char* name :
       {"default", kPointsCf, kLatestCf, kKvCf, kFencesCf, kTypesCf}) {
    EXPECT_THAT(text, HasSubstr(std::string("rocksdb cf ") + name + ":"));
  }
  EXPECT_THAT(text, HasSubstr("write_buffer_size=8MiB"));
  EXPECT_THAT(text, HasSubstr("block_cache=896MiB"));
  EXPECT_THAT(text, HasSubstr("memory_budget=1024MiB"));
  EXPECT_THAT(text, HasSubstr("memtables_charged_to_cache=yes"));
}

TEST(StorageConfigWarningsTest, DefaultsAndDerivedBudgetsHaveNoWarnings) {
  EXPECT_THAT(StorageConfigWarnings(v1::StorageConfig()), IsEmpty());
  for (uint64_t budget : {16, 64, 256, 4096, 65536}) {
    v1::StorageConfig s;
    s.set_memory_budget_mb(budget);
    EXPECT_THAT(StorageConfigWarnings(s), IsEmpty()) << budget;
  }
}

TEST(StorageConfigWarningsTest, IncoherentMemorySettingsAreWarnedWithNumbers) {
  // Memtables far above the budget.
  v1::StorageConfig s;
  s.set_memory_budget_mb(256);
  s.set_write_buffer_size_mb(256);
  s.set_db_write_buffer_size_mb(1024);
  s.set_max_write_buffer_number(6);
  EXPECT_THAT(StorageConfigWarnings(s),
              Contains(AllOf(HasSubstr("256 x 6 x 7 = 10752 MiB"),
                             HasSubstr("42x storage.memory_budget_mb (256"))));
  EXPECT_THAT(StorageConfigWarnings(s),
              Contains(HasSubstr("1024 + 24 = 1048 MiB exceeds RocksDB's share "
                                 "(192 MiB) of storage.memory_budget_mb (256 "
                                 "MiB; the rest, 64 MiB, is the server's)")));

  // The small-flush trap: a total that holds barely more than one memtable.
  v1::StorageConfig pika;
  pika.set_write_buffer_size_mb(64);
  pika.set_db_write_buffer_size_mb(100);
  EXPECT_THAT(StorageConfigWarnings(pika),
              Contains(AllOf(HasSubstr("(100 MiB)"), HasSubstr("64 MiB"),
                             HasSubstr("before they fill, as small files"))));

  v1::StorageConfig unbounded;
  unbounded.set_db_write_buffer_size_mb(0);
  EXPECT_THAT(StorageConfigWarnings(unbounded),
              Contains(HasSubstr("8 x 4 x 7 = 224 MiB")));

  v1::StorageConfig bulk;
  bulk.set_bulk_load(true);
  EXPECT_THAT(StorageConfigWarnings(bulk),
              Contains(HasSubstr("bulk_load is on")));
}

}  // namespace
}  // namespace trackdb::storage
