#ifndef TRACKDB_STORAGE_STATS_STORE_STATS_H_
#define TRACKDB_STORAGE_STATS_STORE_STATS_H_

// StoreStats: what operators of a hand-tuned RocksDB dig out with iostat
// and LOG files, read from a store in one call: writes to disk (count,
// bytes, average size), flushes (count, average size), L0 files, pending
// compaction bytes, write stalls (slowdown vs stop, time and cause), memtable
// usage vs budget, block cache usage and hit rate, write amplification, per
// column family where RocksDB keeps it per column family.
//
// Sources: RocksDB properties (rocksdb.num-files-at-level0,
// rocksdb.estimate-pending-compaction-bytes, rocksdb.cur-size-all-mem-tables,
// the rocksdb.cfstats map's io_stalls.*), the Statistics tickers
// (BLOCK_CACHE_HIT/MISS, STALL_MICROS, BYTES_WRITTEN, ...), the event
// listener (storage/engine/store_events.h) and the write-counting file system
// (storage/engine/io_counters.h). Counters are totals since the store opened;
// rates need two samples (StatsSampler).

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "rocksdb/db.h"
#include "storage/engine/options.h"

namespace trackdb::storage {

class TrackStore;

struct CfStats {
  std::string name;
  // Fixes its SST files hold (points: raw fixes; chunks: the fixes in
  // them; 0 for the other families), and those files' bytes:
  // storage/points/history_fixes.h.
  uint64_t history_fixes = 0;
  uint64_t history_bytes = 0;
  // LSM shape.
  int l0_files = 0;
  uint64_t l0_bytes = 0;
  uint64_t live_sst_bytes = 0;
  uint64_t pending_compaction_bytes = 0;
  uint64_t memtable_bytes = 0;  // active + immutable
  int immutable_memtables = 0;
  // Flushes and compactions since open.
  uint64_t flushes = 0;
  uint64_t flush_bytes = 0;      // SST bytes
  uint64_t flush_raw_bytes = 0;  // uncompressed keys + values
  uint64_t compaction_bytes = 0;
  // Write stalls since open: how often and how long writes were slowed
  // down or stopped, and by which trigger (RocksDB's io_stalls counters).
  uint64_t slowdowns = 0;
  uint64_t stops = 0;
  double slowdown_seconds = 0;
  double stop_seconds = 0;
  bool slowed_now = false;
  bool stopped_now = false;
  uint64_t l0_slowdowns = 0;        // io_stalls.level0_slowdown
  uint64_t l0_stops = 0;            // io_stalls.level0_numfiles
  uint64_t pending_slowdowns = 0;   // io_stalls.slowdown_for_pending_...
  uint64_t pending_stops = 0;       // io_stalls.stop_for_pending_...
  uint64_t memtable_slowdowns = 0;  // io_stalls.memtable_slowdown
  uint64_t memtable_stops = 0;      // io_stalls.memtable_compaction
  // Effective (current) options.
  uint64_t write_buffer_size = 0;
  int max_write_buffer_number = 0;
  int level0_file_num_compaction_trigger = 0;
  int level0_slowdown_writes_trigger = 0;
  int level0_stop_writes_trigger = 0;
  bool disable_auto_compactions = false;

  double avg_flush_bytes() const {
    return flushes ? static_cast<double>(flush_bytes) / flushes : 0;
  }
  double avg_flush_raw_bytes() const {
    return flushes ? static_cast<double>(flush_raw_bytes) / flushes : 0;
  }
  // (flush + compaction bytes) / flush bytes: what each byte flushed cost.
  double write_amplification() const {
    return flush_bytes ? static_cast<double>(flush_bytes + compaction_bytes) /
                             flush_bytes
                       : 0;
  }
};

struct DiskWrites {
  uint64_t ops = 0;
  uint64_t bytes = 0;
  double avg_bytes() const {
    return ops ? static_cast<double>(bytes) / ops : 0;
  }
};

struct StoreStats {
  double seconds_since_open = 0;
  bool bulk_load = false;

  // Memory.
  uint64_t memory_budget_bytes = 0;         // storage.memory_budget_mb
  uint64_t memtable_budget_bytes = 0;       // db_write_buffer_size; 0 = none
  uint64_t memtable_bytes = 0;              // all column families
  uint64_t block_cache_capacity_bytes = 0;  // includes the memtable charge
  // Includes the memtable charge and the latest index's.
  uint64_t block_cache_usage_bytes = 0;
  uint64_t latest_index_bytes = 0;  // charged to the block cache
  uint64_t block_cache_pinned_bytes = 0;
  uint64_t block_cache_hits = 0;
  uint64_t block_cache_misses = 0;
  uint64_t process_rss_bytes = 0;  // /proc/self/status VmRSS; 0 if unknown

  // Writes: by clients (keys and bytes into the write path) and to disk.
  uint64_t user_keys_written = 0;
  uint64_t user_bytes_written = 0;
  DiskWrites wal_writes;
  DiskWrites sst_writes;
  DiskWrites other_writes;
  uint64_t stall_micros = 0;        // STALL_MICROS: time writers were delayed
  uint64_t delayed_write_rate = 0;  // rocksdb.actual-delayed-write-rate, B/s
  bool write_stopped = false;       // rocksdb.is-write-stopped
  // RocksDB's background error (storage/engine/store_events.h DiskErrorState):
  // a full or failing disk, writes refused until it recovers.
  bool disk_failing = false;
  bool disk_no_space = false;
  bool disk_writes_stopped = false;
  bool disk_fatal = false;  // not recovered from until trackd restarts
  std::string disk_error;   // RocksDB's words; empty when not failing
  uint64_t background_errors = 0;
  uint64_t error_recoveries = 0;

  // Over the interval since the previous sample (StatsSampler); 0 when
  // there was none.
  double rate_interval_seconds = 0;
  double disk_write_bytes_per_second = 0;
  double disk_writes_per_second = 0;
  double user_bytes_per_second = 0;

  // Effective DB options.
  int max_background_jobs = 0;

  std::vector<CfStats> column_families;

  DiskWrites disk_writes() const {
    return {wal_writes.ops + sst_writes.ops + other_writes.ops,
            wal_writes.bytes + sst_writes.bytes + other_writes.bytes};
  }
  double block_cache_hit_rate() const {
    const uint64_t n = block_cache_hits + block_cache_misses;
    return n ? static_cast<double>(block_cache_hits) / n : 0;
  }
  // Bytes written to disk (WAL, SSTs, metadata) per byte written by clients.
  double write_amplification() const {
    return user_bytes_written
               ? static_cast<double>(disk_writes().bytes) / user_bytes_written
               : 0;
  }
  const CfStats* cf(const std::string& name) const {
    for (const CfStats& c : column_families) {
      if (c.name == name) return &c;
    }
    return nullptr;
  }
  // Sums over column families.
  int l0_files() const;
  uint64_t pending_compaction_bytes() const;
  uint64_t flushes() const;
  uint64_t flush_bytes() const;
  uint64_t flush_raw_bytes() const;
  double slowdown_seconds() const;
  double stop_seconds() const;
  // What history costs on disk: the SST bytes of points (raw fixes and the
  // history cells) and chunks over the fixes they hold (of files that
  // count them); 0 with none.
  double history_bytes_per_fix() const;
};

// Everything above but the rates, from the store's DB and the observers in
// its options.
StoreStats ReadStoreStats(TrackStore& store);

// The same for any open DB (e.g. one opened read-only by the doctor):
// `options` supplies the observers; those it lacks read as zero.
StoreStats ReadStoreStats(rocksdb::DB* db,
                          const std::vector<rocksdb::ColumnFamilyHandle*>& cfs,
                          const StoreOptions& options, bool bulk_load,
                          double seconds_since_open);

// For a DB no process serves (or one served by another process): opens
// `data_dir` read-only with the options it was last opened with (its
// OPTIONS file, so bulk-load mode left on shows), reads what a fresh open
// can (LSM shape, pending compaction, effective options; no flush or stall
// history) and closes it. `config` supplies the memory budget. The
// returned StoreOptions hold the loaded options, for Diagnose.
struct ReadOnlyStats {
  StoreStats stats;
  StoreOptions options;
};
absl::StatusOr<ReadOnlyStats> ReadStoreStatsReadOnly(
    const std::string& data_dir, const v1::StorageConfig& config);

// Keeps the previous sample and fills in the rates of the next one.
class StatsSampler {
 public:
  StoreStats Sample(TrackStore& store);
  // For tests and other DBs: fills `next`'s rates from the previous one.
  void AddRates(StoreStats& next);

 private:
  absl::Mutex mu_;
  bool have_previous_ ABSL_GUARDED_BY(mu_) = false;
  StoreStats previous_ ABSL_GUARDED_BY(mu_);
};

}  // namespace trackdb::storage

#endif  // TRACKDB_STORAGE_STATS_STORE_STATS_H_
