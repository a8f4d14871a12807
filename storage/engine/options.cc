#include "storage/engine/options.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "conf/config.h"
#include "rocksdb/cache.h"
#include "rocksdb/convenience.h"
#include "rocksdb/filter_policy.h"
#include "rocksdb/statistics.h"
#include "rocksdb/table.h"
#include "rocksdb/utilities/table_properties_collectors.h"
#include "rocksdb/write_buffer_manager.h"
#include "storage/format/counter_merge.h"
#include "storage/format/keys.h"
#include "storage/points/history_expiry.h"
#include "storage/points/history_fixes.h"
#include "storage/strings/kv_expiry.h"
#include "storage/typed/typed_gc.h"

namespace trackdb::storage {
namespace {

constexpr uint64_t kMiB = 1 << 20;

absl::StatusOr<rocksdb::CompressionType> ToRocksCompression(v1::Compression c) {
  rocksdb::CompressionType type;
  switch (c) {
    case v1::COMPRESSION_NONE:
      return rocksdb::kNoCompression;
    case v1::COMPRESSION_SNAPPY:
      type = rocksdb::kSnappyCompression;
      break;
    case v1::COMPRESSION_ZSTD:
      type = rocksdb::kZSTD;
      break;
    default:
      type = rocksdb::kLZ4Compression;
  }
  for (rocksdb::CompressionType supported :
       rocksdb::GetSupportedCompressions()) {
    if (supported == type) return type;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("storage.compression ", v1::Compression_Name(c),
                   " is not supported by this build of RocksDB"));
}

std::string MiB(uint64_t bytes) {
  return absl::StrFormat("%.0fMiB", static_cast<double>(bytes) / kMiB);
}

// trackdb's tuned DB-wide options and the typed knobs.
rocksdb::DBOptions TunedDbOptions(const v1::StorageConfig& c) {
  rocksdb::DBOptions db;
  db.create_if_missing = true;
  db.create_missing_column_families = true;
  db.max_background_jobs = static_cast<int>(c.max_background_jobs());
  db.db_write_buffer_size = c.db_write_buffer_size_mb() * kMiB;
  db.bytes_per_sync = 1 * kMiB;
  db.keep_log_file_num = 10;
  // Flushed WAL kept for replicas that fell behind
  // (storage/replication/replication.h).
  db.WAL_ttl_seconds = c.wal_retention_s();
  db.WAL_size_limit_MB = c.wal_retention_mb();
  // No pipelined writes, though they measured SET +15% and GEOADD +4-20%
  // (redis-benchmark -c 50, bench/README.md): with them a write group's
  // WAL record can be in the WAL while only part of it is published, and a
  // replica's WAL reader (GetUpdatesSince, storage/replication/replication.h)
  // that reaches it trips an assertion of Debian's RocksDB (a reader that skips
  // it would ship a batch readers cannot see yet). Without them a group is
  // published whole, and the reader stops at the last published one.
  db.enable_pipelined_write = false;
  return db;
}

// The column family options every column family starts from: the typed
// knobs, before the raw option string and each family's own additions.
absl::StatusOr<rocksdb::ColumnFamilyOptions> TunedCfOptions(
    const v1::StorageConfig& c) {
  rocksdb::ColumnFamilyOptions cf;
  cf.write_buffer_size = c.write_buffer_size_mb() * kMiB;
  cf.max_write_buffer_number = static_cast<int>(c.max_write_buffer_number());
  cf.level0_file_num_compaction_trigger =
      static_cast<int>(c.level0_file_num_compaction_trigger());
  cf.level0_slowdown_writes_trigger =
      static_cast<int>(c.level0_slowdown_writes_trigger());
  cf.level0_stop_writes_trigger =
      static_cast<int>(c.level0_stop_writes_trigger());
  cf.level_compaction_dynamic_level_bytes = true;
  auto compression = ToRocksCompression(c.compression());
  if (!compression.ok()) return compression.status();
  cf.compression = *compression;
  return cf;
}

// INVALID_ARGUMENT naming the config field whose option string RocksDB
// rejected, so that the operator knows which line of the config to fix.
absl::Status BadOptionString(absl::string_view field,
                             const rocksdb::Status& s) {
  return absl::InvalidArgumentError(
      absl::StrCat("storage.", field, ": ", s.ToString()));
}

// The raw option strings, last so that they win over everything above.
absl::Status ApplyOptionStrings(const v1::StorageConfig& c,
                                rocksdb::DBOptions& db,
                                rocksdb::ColumnFamilyOptions& cf) {
  rocksdb::ConfigOptions parse;
  parse.ignore_unknown_options = false;
  parse.input_strings_escaped = false;
  if (!c.rocksdb_db_options().empty()) {
    rocksdb::Status s =
        rocksdb::GetDBOptionsFromString(parse, db, c.rocksdb_db_options(), &db);
    if (!s.ok()) return BadOptionString("rocksdb_db_options", s);
    if (db.enable_pipelined_write) {
      return absl::InvalidArgumentError(
          "storage.rocksdb_db_options: enable_pipelined_write=true is "
          "refused: replication reads the WAL, which needs each write group "
          "published whole (storage/engine/options.cc)");
    }
  }
  if (!c.rocksdb_cf_options().empty()) {
    rocksdb::Status s = rocksdb::GetColumnFamilyOptionsFromString(
        parse, cf, c.rocksdb_cf_options(), &cf);
    if (!s.ok()) return BadOptionString("rocksdb_cf_options", s);
  }
  return absl::OkStatus();
}

// One block cache for all column families, holding index and filter
// blocks too so that it bounds them, and charged with the memtables.
std::shared_ptr<rocksdb::Cache> ShareOneCache(
    const v1::StorageConfig& c, const rocksdb::ColumnFamilyOptions& cf,
    rocksdb::DBOptions& db) {
  const uint64_t memtable_budget = db.db_write_buffer_size;
  std::shared_ptr<rocksdb::Cache> cache = rocksdb::NewLRUCache(
      c.block_cache_size_mb() * kMiB + memtable_budget,
      /*num_shard_bits=*/-1, /*strict_capacity_limit=*/false);
  if (memtable_budget > 0) {
    // Stalling writes at the total is safe only when the total holds a
    // memtable per written column family: below that, the empty memtables'
    // arenas alone can keep usage above the total and writes would wait
    // forever. Such a config is warned about at start and by the doctor.
    const bool allow_stall =
        memtable_budget >= kPointColumnFamilies * cf.write_buffer_size;
    db.write_buffer_manager = std::make_shared<rocksdb::WriteBufferManager>(
        memtable_budget, cache, allow_stall);
  }
  return cache;
}

// What storage/stats/store_stats.h reads: statistics, events and disk writes.
void AttachObservers(StoreOptions& out) {
  rocksdb::DBOptions& db = out.db;
  db.statistics = rocksdb::CreateDBStatistics();
  out.events = std::make_shared<StoreEvents>();
  db.listeners.push_back(out.events);
  out.io = std::make_shared<IoCounters>();
  out.env = rocksdb::NewCompositeEnv(
      NewCountingFileSystem(rocksdb::FileSystem::Default(), out.io));
  db.env = out.env.get();
}

rocksdb::BlockBasedTableOptions TableOptions(
    std::shared_ptr<rocksdb::Cache> cache) {
  rocksdb::BlockBasedTableOptions table;
  table.block_cache = std::move(cache);
  table.block_size = 16 * 1024;
  table.cache_index_and_filter_blocks = true;
  table.pin_l0_filter_and_index_blocks_in_cache = true;
  table.format_version = 5;
  return table;
}

rocksdb::ColumnFamilyOptions WithTable(
    rocksdb::ColumnFamilyOptions o, const rocksdb::BlockBasedTableOptions& t) {
  o.table_factory.reset(rocksdb::NewBlockBasedTableFactory(t));
  return o;
}

// latest is rewritten on every move (a dead version each time) and loses
// keys on DEL: compact SST files dense in deletions early, so the scans
// that load the latest index and walk a collection do not wade through
// them.
rocksdb::ColumnFamilyOptions Overwritten(rocksdb::ColumnFamilyOptions o) {
  o.table_properties_collector_factories.push_back(
      rocksdb::NewCompactOnDeletionCollectorFactory(
          /*sliding_window_size=*/128 * 1024, /*deletion_trigger=*/32 * 1024,
          /*deletion_ratio=*/0.25));
  return o;
}

// default holds the collection registry's counters: a merge per write
// batch that changes a collection's size. Unbounded, a key's operands pile
// up in the memtable (this CF takes few bytes, so it flushes rarely) and
// every read of the count merges them all: after a 1M-member GEOADD
// preload, 10k operands per read, half of GEOSEARCH's time. Folding them
// into a value every kMaxCounterOperands keeps a read to a few. (RocksDB
// inserts batches with merges into the memtable one at a time, so the
// fold sees every earlier operand.)
rocksdb::ColumnFamilyOptions Counters(rocksdb::ColumnFamilyOptions o) {
  o.merge_operator = NewCounterMergeOperator();
  o.max_successive_merges = kMaxCounterOperands;
  return o;
}

// kv: expired strings are dropped by compaction, and every file is
// compacted at least daily so that they do not linger in cold files.
rocksdb::ColumnFamilyOptions Expiring(rocksdb::ColumnFamilyOptions o) {
  o.compaction_filter_factory = NewExpiredStringFilterFactory();
  o.periodic_compaction_seconds = 24 * 60 * 60;
  return o;
}

// points: history older than its collection's retention is dropped by
// compaction (storage/points/history_expiry.h). RocksDB's default periodic
// compaction for a CF with a filter (every file at least every 30 days)
// bounds how long expired points linger in cold files.
rocksdb::ColumnFamilyOptions Retained(
    rocksdb::ColumnFamilyOptions o,
    std::shared_ptr<RetentionPolicies> policies) {
  o.compaction_filter_factory =
      NewExpiredHistoryFilterFactory(std::move(policies));
  return o;
}

// types: garbage members (of values deleted, replaced or expired in O(1))
// and expired metas are dropped by compaction; every file is compacted at
// least daily so that they do not linger in cold files.
rocksdb::ColumnFamilyOptions Collected(rocksdb::ColumnFamilyOptions o,
                                       std::shared_ptr<TypedGcTarget> gc) {
  o.compaction_filter_factory =
      NewTypedGcFilterFactory(std::move(gc), SystemNowMs);
  o.periodic_compaction_seconds = 24 * 60 * 60;
  return o;
}

// Looked-up keys are often absent (a new entity, a SET of a new key):
// a bloom filter over each memtable's keys answers that without walking
// its skiplist (14% of trackd's CPU under SETs of new keys without it).
rocksdb::ColumnFamilyOptions LookedUp(rocksdb::ColumnFamilyOptions o) {
  o.memtable_prefix_bloom_size_ratio = 0.02;
  o.memtable_whole_key_filtering = true;
  return o;
}

bool HasZstd() {
  const std::vector<rocksdb::CompressionType> all =
      rocksdb::GetSupportedCompressions();
  return std::find(all.begin(), all.end(), rocksdb::kZSTD) != all.end();
}

// points, beside retention: files in the last level (cold history and the
// history cells' keys, which stay) are ZSTD's where this RocksDB has it.
rocksdb::ColumnFamilyOptions ColdInZstd(rocksdb::ColumnFamilyOptions o) {
  if (HasZstd()) o.bottommost_compression = rocksdb::kZSTD;
  return o;
}

// points and chunks: each file counts its fixes, for stats' bytes a fix.
rocksdb::ColumnFamilyOptions CountingFixes(rocksdb::ColumnFamilyOptions o,
                                           HistoryFamily family) {
  o.table_properties_collector_factories.push_back(
      NewHistoryFixesCollectorFactory(family));
  return o;
}

// chunks: expired fixes go as points' do (storage/points/history_expiry.h).
// Chunks are written once and read whole, columns of small varints: ZSTD
// at level 9 over 32 KiB blocks (a few chunks each) where this RocksDB has
// it, which stores them in about half what LZ4 over 4 KiB blocks does
// (bench/README.md, History on disk).
rocksdb::ColumnFamilyOptions Chunked(
    rocksdb::ColumnFamilyOptions o, rocksdb::BlockBasedTableOptions table,
    std::shared_ptr<RetentionPolicies> policies) {
  table.block_size = 32 << 10;
  o = WithTable(std::move(o), table);
  o.compaction_filter_factory =
      NewExpiredChunkFilterFactory(std::move(policies));
  if (HasZstd()) {
    o.compression = rocksdb::kZSTD;
    o.compression_opts.level = 9;
  }
  return o;
}

// Each column family: `cf` with the table options and additions its use
// needs. Scanned column families need no bloom filter; looked-up ones do.
std::vector<rocksdb::ColumnFamilyDescriptor> ColumnFamilies(
    const rocksdb::ColumnFamilyOptions& cf,
    const rocksdb::BlockBasedTableOptions& table,
    std::shared_ptr<RetentionPolicies> retention,
    std::shared_ptr<TypedGcTarget> typed_gc) {
  rocksdb::BlockBasedTableOptions point_lookup_table = table;
  point_lookup_table.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
  return {
      {rocksdb::kDefaultColumnFamilyName,
       Counters(WithTable(cf, point_lookup_table))},
      {kPointsCf,
       CountingFixes(ColdInZstd(Retained(WithTable(cf, table), retention)),
                     HistoryFamily::kRawFixes)},
      {kLatestCf, LookedUp(Overwritten(WithTable(cf, point_lookup_table)))},
      {kKvCf, LookedUp(Expiring(WithTable(cf, point_lookup_table)))},
      {kFencesCf, WithTable(cf, table)},
      {kTypesCf,
       LookedUp(Collected(WithTable(cf, point_lookup_table), typed_gc))},
      {kChunksCf, CountingFixes(Chunked(cf, table, std::move(retention)),
                                HistoryFamily::kChunks)},
  };
}

}  // namespace

absl::StatusOr<StoreOptions> BuildStoreOptions(
    const v1::StorageConfig& config) {
  StoreOptions out;
  out.config = conf::WithStorageDefaults(config);
  const v1::StorageConfig& c = out.config;

  out.db = TunedDbOptions(c);
  absl::StatusOr<rocksdb::ColumnFamilyOptions> cf = TunedCfOptions(c);
  if (!cf.ok()) return cf.status();
  if (absl::Status s = ApplyOptionStrings(c, out.db, *cf); !s.ok()) return s;

  out.block_cache = ShareOneCache(c, *cf, out.db);
  AttachObservers(out);
  out.retention = std::make_shared<RetentionPolicies>();
  out.typed_gc = std::make_shared<TypedGcTarget>();
  out.column_families = ColumnFamilies(*cf, TableOptions(out.block_cache),
                                       out.retention, out.typed_gc);

  out.write.disableWAL = c.durability() == v1::DURABILITY_WAL_OFF;
  out.write.sync = c.durability() == v1::DURABILITY_WAL_SYNC;
  return out;
}

std::unordered_map<std::string, std::string> BulkLoadCfOptions() {
  rocksdb::Options bulk;
  bulk.PrepareForBulkLoad();
  return {
      {"disable_auto_compactions", "true"},
      {"level0_file_num_compaction_trigger",
       absl::StrCat(bulk.level0_file_num_compaction_trigger)},
      {"level0_slowdown_writes_trigger",
       absl::StrCat(bulk.level0_slowdown_writes_trigger)},
      {"level0_stop_writes_trigger",
       absl::StrCat(bulk.level0_stop_writes_trigger)},
      {"soft_pending_compaction_bytes_limit",
       absl::StrCat(bulk.soft_pending_compaction_bytes_limit)},
      {"hard_pending_compaction_bytes_limit",
       absl::StrCat(bulk.hard_pending_compaction_bytes_limit)},
      {"max_compaction_bytes", absl::StrCat(bulk.max_compaction_bytes)},
      {"target_file_size_base", absl::StrCat(bulk.target_file_size_base)},
  };
}

std::unordered_map<std::string, std::string> SteadyCfOptions(
    const rocksdb::ColumnFamilyOptions& cf) {
  return {
      {"disable_auto_compactions",
       cf.disable_auto_compactions ? "true" : "false"},
      {"level0_file_num_compaction_trigger",
       absl::StrCat(cf.level0_file_num_compaction_trigger)},
      {"level0_slowdown_writes_trigger",
       absl::StrCat(cf.level0_slowdown_writes_trigger)},
      {"level0_stop_writes_trigger",
       absl::StrCat(cf.level0_stop_writes_trigger)},
      {"soft_pending_compaction_bytes_limit",
       absl::StrCat(cf.soft_pending_compaction_bytes_limit)},
      {"hard_pending_compaction_bytes_limit",
       absl::StrCat(cf.hard_pending_compaction_bytes_limit)},
      {"max_compaction_bytes", absl::StrCat(cf.max_compaction_bytes)},
      {"target_file_size_base", absl::StrCat(cf.target_file_size_base)},
  };
}

std::string DescribeOptions(const StoreOptions& o) {
  std::string text = absl::StrCat(
      "rocksdb db: memory_budget=", o.config.memory_budget_mb(), "MiB",
      " block_cache_capacity=",
      o.block_cache ? MiB(o.block_cache->GetCapacity()) : std::string("none"),
      " memtables_charged_to_cache=", o.db.write_buffer_manager ? "yes" : "no",
      " max_background_jobs=", o.db.max_background_jobs,
      " db_write_buffer_size=", MiB(o.db.db_write_buffer_size),
      " wal=", o.write.disableWAL ? "off" : "on",
      " sync=", o.write.sync ? "every write" : "off",
      " max_open_files=", o.db.max_open_files, "\n");
  for (const auto& cf : o.column_families) {
    const rocksdb::ColumnFamilyOptions& c = cf.options;
    std::string compression;
    rocksdb::GetStringFromCompressionType(&compression, c.compression);
    absl::StrAppend(
        &text, "rocksdb cf ", cf.name,
        ": write_buffer_size=", MiB(c.write_buffer_size),
        " max_write_buffer_number=", c.max_write_buffer_number,
        " level0_file_num_compaction_trigger=",
        c.level0_file_num_compaction_trigger,
        " level0_slowdown_writes_trigger=", c.level0_slowdown_writes_trigger,
        " level0_stop_writes_trigger=", c.level0_stop_writes_trigger,
        " disable_auto_compactions=",
        c.disable_auto_compactions ? "true" : "false",
        " compression=", compression, " num_levels=", c.num_levels);
    if (const auto* t =
            c.table_factory->GetOptions<rocksdb::BlockBasedTableOptions>()) {
      absl::StrAppend(&text, " block_cache=",
                      t->block_cache ? MiB(t->block_cache->GetCapacity())
                                     : std::string("none"),
                      " bloom_filter=", t->filter_policy ? "on" : "off");
    }
    absl::StrAppend(&text, "\n");
  }
  return text;
}

std::vector<std::string> StorageConfigWarnings(
    const v1::StorageConfig& storage) {
  const v1::StorageConfig s = conf::WithStorageDefaults(storage);
  std::vector<std::string> warnings;
  const uint64_t budget = s.memory_budget_mb();
  const uint64_t memtable = s.write_buffer_size_mb();
  const uint64_t total = s.db_write_buffer_size_mb();
  const uint64_t worst =
      memtable * s.max_write_buffer_number() * kColumnFamilyCount;
  if (total == 0) {
    warnings.push_back(absl::StrCat(
        "storage.db_write_buffer_size_mb is 0: memtables are outside "
        "storage.memory_budget_mb (",
        budget,
        " MiB) and can reach write_buffer_size_mb x "
        "max_write_buffer_number x column families = ",
        memtable, " x ", s.max_write_buffer_number(), " x ", kColumnFamilyCount,
        " = ", worst, " MiB"));
  } else {
    if (worst > conf::kFarAboveBudget * budget) {
      warnings.push_back(absl::StrCat(
          "write_buffer_size_mb x max_write_buffer_number x column families "
          "= ",
          memtable, " x ", s.max_write_buffer_number(), " x ",
          kColumnFamilyCount, " = ", worst, " MiB, ", worst / budget,
          "x storage.memory_budget_mb (", budget,
          " MiB): the memtable total (db_write_buffer_size_mb = ", total,
          " MiB) will force flushes long before that"));
    }
    if (total < memtable * kPointColumnFamilies) {
      warnings.push_back(absl::StrCat(
          "storage.db_write_buffer_size_mb (", total,
          " MiB) holds fewer than one full memtable (write_buffer_size_mb = ",
          memtable, " MiB) for each of the ", kPointColumnFamilies,
          " column families every point writes: memtables will be flushed "
          "before they fill, as small files"));
    }
    if (total + s.block_cache_size_mb() > conf::RocksDbShareMb(budget)) {
      warnings.push_back(absl::StrCat(
          "storage.db_write_buffer_size_mb + storage.block_cache_size_mb = ",
          total, " + ", s.block_cache_size_mb(), " = ",
          total + s.block_cache_size_mb(), " MiB exceeds RocksDB's share (",
          conf::RocksDbShareMb(budget), " MiB) of storage.memory_budget_mb (",
          budget, " MiB; the rest, ", conf::ServerReserveMb(budget),
          " MiB, is the server's)"));
    }
  }
  if (s.bulk_load()) {
    warnings.push_back(
        "storage.bulk_load is on: no automatic compaction, L0 grows without "
        "bound; turn it off (admin SetBulkLoad) when the import is done");
  }
  return warnings;
}

}  // namespace trackdb::storage
