#ifndef TRACKDB_STORAGE_ENGINE_OPTIONS_H_
#define TRACKDB_STORAGE_ENGINE_OPTIONS_H_

// From trackd's StorageConfig to RocksDB options: trackdb's tuned defaults
// (conf/config.h), the typed knobs, then the raw option strings, in that
// order of precedence (later wins).
//
// Memory: one LRU block cache shared by every column family, with index and
// filter blocks charged to it, so the cache size bounds them too (a field
// report from Pravega saw memory far above its caches because they were
// not). Memtables are bounded by db_write_buffer_size through a
// WriteBufferManager that charges them to the same cache, whose capacity is
// therefore db_write_buffer_size + block_cache_size = storage.memory_budget_mb
// by default: memtables and blocks share one bound. The manager stalls writes
// rather than let memtables pass their total, when the total holds at least
// one memtable per written column family (otherwise a stall could never
// end; such configs are warned about). The cache is not a strict
// limit (strict_capacity_limit=false): a read that needs a block when every
// entry is pinned succeeds and briefly exceeds it, rather than failing.
//
// Observability: every store gets a rocksdb::Statistics object, an event
// listener (storage/engine/store_events.h) and a file system that counts writes to
// disk (storage/engine/io_counters.h); storage/stats/store_stats.h reads them.

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "absl/status/statusor.h"
#include "rocksdb/db.h"
#include "rocksdb/options.h"
#include "storage/engine/io_counters.h"
#include "storage/points/retention.h"
#include "storage/engine/store_events.h"
#include "storage/typed/typed_gc.h"
#include "trackdb/v1/config.pb.h"

namespace trackdb::storage {

struct StoreOptions {
  rocksdb::DBOptions db;
  // One per ColumnFamily (storage/format/keys.h), in that order. These
  // are the steady-state options even when config.bulk_load() is set:
  // TrackStore::Open then switches bulk-load mode on after opening
  // (TrackStore::SetBulkLoad, storage/bulk_load.cc), and switching it off
  // restores these.
  std::vector<rocksdb::ColumnFamilyDescriptor> column_families;
  rocksdb::WriteOptions write;

  // The storage config with every default filled in.
  v1::StorageConfig config;
  // The one cache (also in every column family's table options).
  std::shared_ptr<rocksdb::Cache> block_cache;
  // Listener (also in db.listeners) and write counters (db.env counts them).
  std::shared_ptr<StoreEvents> events;
  std::shared_ptr<IoCounters> io;
  std::shared_ptr<rocksdb::Env> env;  // owns db.env
  // Every collection's history retention, which the points CF's
  // compaction filter reads (storage/points/retention.h); TrackStore::Open loads
  // the stored policies into it.
  std::shared_ptr<RetentionPolicies> retention;
  // The DB the types CF's compaction filter reads metas from
  // (storage/typed/typed_gc.h); TrackStore::Open attaches it, Close detaches it.
  std::shared_ptr<TypedGcTarget> typed_gc;
};

// PrepareForBulkLoad()'s column family settings that can change on an open
// DB (RocksDB's SetOptions), and the same keys with `cf`'s values, to go
// back. PrepareForBulkLoad's num_levels = 2 is left out on purpose: a DB
// that already has deeper levels would then fail to open.
std::unordered_map<std::string, std::string> BulkLoadCfOptions();
std::unordered_map<std::string, std::string> SteadyCfOptions(
    const rocksdb::ColumnFamilyOptions& cf);

// INVALID_ARGUMENT naming the field when RocksDB rejects a raw option string
// or this build of RocksDB lacks the chosen compression.
absl::StatusOr<StoreOptions> BuildStoreOptions(const v1::StorageConfig& config);

// Settings that RocksDB accepts and conf's ValidateConfig lets through but
// that do not fit together, with the store's column families, or with
// storage.memory_budget_mb, one sentence each with the numbers. trackd logs
// them at start.
std::vector<std::string> StorageConfigWarnings(
    const v1::StorageConfig& storage);

// The effective values of the knobs trackdb tunes, a line per column family,
// for the log at start.
std::string DescribeOptions(const StoreOptions& options);

}  // namespace trackdb::storage

#endif  // TRACKDB_STORAGE_ENGINE_OPTIONS_H_
