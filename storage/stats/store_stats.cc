#include "storage/stats/store_stats.h"

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "rocksdb/convenience.h"
#include "rocksdb/statistics.h"
#include "rocksdb/utilities/options_util.h"
#include "rocksdb/write_buffer_manager.h"
#include "storage/engine/engine.h"
#include "storage/format/keys.h"
#include "storage/format/rocks_util.h"
#include "storage/points/history_fixes.h"
#include "storage/track_store.h"

namespace trackdb::storage {
namespace {

uint64_t IntProperty(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* cf,
                     const std::string& name) {
  uint64_t value = 0;
  if (cf ? db->GetIntProperty(cf, name, &value)
         : db->GetIntProperty(name, &value)) {
    return value;
  }
  return 0;
}

uint64_t MapValue(const std::map<std::string, std::string>& map,
                  const std::string& key) {
  auto it = map.find(key);
  if (it == map.end()) return 0;
  double value = 0;
  return absl::SimpleAtod(it->second, &value) ? static_cast<uint64_t>(value)
                                              : 0;
}

uint64_t ProcessRssBytes() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmRSS:", 0) == 0) {
      return std::strtoull(line.c_str() + 6, nullptr, 10) * 1024;
    }
  }
  return 0;
}

DiskWrites ToDiskWrites(const IoTotals& t) {
  return {t.write_ops, t.write_bytes};
}

// The DB-wide numbers: memory, statistics tickers, disk writes and write
// stalls.
void ReadDbStats(rocksdb::DB* db, const StoreOptions& options,
                 StoreStats& out) {
  const rocksdb::DBOptions db_options = db->GetDBOptions();
  out.max_background_jobs = db_options.max_background_jobs;
  out.memtable_budget_bytes =
      db_options.write_buffer_manager
          ? db_options.write_buffer_manager->buffer_size()
          : db_options.db_write_buffer_size;
  if (options.block_cache) {
    out.block_cache_capacity_bytes = options.block_cache->GetCapacity();
    out.block_cache_usage_bytes = options.block_cache->GetUsage();
    out.block_cache_pinned_bytes = options.block_cache->GetPinnedUsage();
  }
  out.process_rss_bytes = ProcessRssBytes();
  if (rocksdb::Statistics* s = db_options.statistics.get()) {
    out.block_cache_hits = s->getTickerCount(rocksdb::BLOCK_CACHE_HIT);
    out.block_cache_misses = s->getTickerCount(rocksdb::BLOCK_CACHE_MISS);
    out.user_keys_written = s->getTickerCount(rocksdb::NUMBER_KEYS_WRITTEN);
    out.user_bytes_written = s->getTickerCount(rocksdb::BYTES_WRITTEN);
    out.stall_micros = s->getTickerCount(rocksdb::STALL_MICROS);
  }
  if (options.io) {
    out.wal_writes = ToDiskWrites(options.io->Get(FileKind::kWal));
    out.sst_writes = ToDiskWrites(options.io->Get(FileKind::kSst));
    out.other_writes = ToDiskWrites(options.io->Get(FileKind::kOther));
  }
  out.delayed_write_rate =
      IntProperty(db, nullptr, "rocksdb.actual-delayed-write-rate");
  out.write_stopped = IntProperty(db, nullptr, "rocksdb.is-write-stopped") != 0;
}

// RocksDB's own stall counters, "io_stalls.*" of rocksdb.cfstats.
void ReadStallCounts(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* handle,
                     CfStats& c) {
  std::map<std::string, std::string> cfstats;
  if (db->GetMapProperty(handle, "rocksdb.cfstats", &cfstats)) {
    c.l0_slowdowns = MapValue(cfstats, "io_stalls.level0_slowdown");
    c.l0_stops = MapValue(cfstats, "io_stalls.level0_numfiles");
    c.pending_slowdowns =
        MapValue(cfstats, "io_stalls.slowdown_for_pending_compaction_bytes");
    c.pending_stops =
        MapValue(cfstats, "io_stalls.stop_for_pending_compaction_bytes");
    c.memtable_slowdowns = MapValue(cfstats, "io_stalls.memtable_slowdown");
    c.memtable_stops = MapValue(cfstats, "io_stalls.memtable_compaction");
  }
}

// What StoreEvents saw of the column family: flushes, compactions, stalls.
void AddEventTotals(const std::map<std::string, CfEventTotals>& events,
                    CfStats& c) {
  if (auto it = events.find(c.name); it != events.end()) {
    const CfEventTotals& e = it->second;
    c.flushes = e.flushes;
    c.flush_bytes = e.flush_bytes;
    c.flush_raw_bytes = e.flush_raw_bytes;
    c.compaction_bytes = e.compaction_bytes;
    c.slowdowns = e.slowdowns;
    c.stops = e.stops;
    c.slowdown_seconds = e.slowdown_seconds;
    c.stop_seconds = e.stop_seconds;
    c.slowed_now = e.slowed_now;
    c.stopped_now = e.stopped_now;
  }
}

// The effective knobs (after SetOptions) that the doctor judges against.
void ReadCfOptions(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* handle,
                   CfStats& c) {
  const rocksdb::ColumnFamilyOptions o = db->GetOptions(handle);
  c.write_buffer_size = o.write_buffer_size;
  c.max_write_buffer_number = o.max_write_buffer_number;
  c.level0_file_num_compaction_trigger = o.level0_file_num_compaction_trigger;
  c.level0_slowdown_writes_trigger = o.level0_slowdown_writes_trigger;
  c.level0_stop_writes_trigger = o.level0_stop_writes_trigger;
  c.disable_auto_compactions = o.disable_auto_compactions;
}

CfStats ReadCfStats(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* handle,
                    const std::map<std::string, CfEventTotals>& events) {
  CfStats c;
  c.name = handle->GetName();
  std::string text;
  if (db->GetProperty(handle, "rocksdb.num-files-at-level0", &text)) {
    c.l0_files = std::atoi(text.c_str());
  }
  c.live_sst_bytes = IntProperty(db, handle, "rocksdb.live-sst-files-size");
  if (c.name == kPointsCf || c.name == kChunksCf) {
    const HistoryFiles history = HistoryFixesInFiles(db, handle);
    c.history_fixes = history.fixes;
    c.history_bytes = history.bytes;
  }
  c.pending_compaction_bytes =
      IntProperty(db, handle, "rocksdb.estimate-pending-compaction-bytes");
  c.memtable_bytes = IntProperty(db, handle, "rocksdb.cur-size-all-mem-tables");
  c.immutable_memtables = static_cast<int>(
      IntProperty(db, handle, "rocksdb.num-immutable-mem-table"));
  rocksdb::ColumnFamilyMetaData meta;
  db->GetColumnFamilyMetaData(handle, &meta);
  if (!meta.levels.empty()) c.l0_bytes = meta.levels[0].size;
  ReadStallCounts(db, handle, c);
  AddEventTotals(events, c);
  ReadCfOptions(db, handle, c);
  return c;
}

// One field summed over every column family.
template <typename T>
T SumOver(const std::vector<CfStats>& cfs, T CfStats::*field) {
  T n = 0;
  for (const CfStats& c : cfs) n += c.*field;
  return n;
}

}  // namespace

int StoreStats::l0_files() const {
  return SumOver(column_families, &CfStats::l0_files);
}
uint64_t StoreStats::pending_compaction_bytes() const {
  return SumOver(column_families, &CfStats::pending_compaction_bytes);
}
uint64_t StoreStats::flushes() const {
  return SumOver(column_families, &CfStats::flushes);
}
uint64_t StoreStats::flush_bytes() const {
  return SumOver(column_families, &CfStats::flush_bytes);
}
uint64_t StoreStats::flush_raw_bytes() const {
  return SumOver(column_families, &CfStats::flush_raw_bytes);
}
double StoreStats::slowdown_seconds() const {
  return SumOver(column_families, &CfStats::slowdown_seconds);
}
double StoreStats::stop_seconds() const {
  return SumOver(column_families, &CfStats::stop_seconds);
}
double StoreStats::history_bytes_per_fix() const {
  uint64_t bytes = 0, fixes = 0;
  for (const CfStats& c : column_families) {
    if (c.name != kPointsCf && c.name != kChunksCf) continue;
    bytes += c.history_bytes;
    fixes += c.history_fixes;
  }
  return fixes ? static_cast<double>(bytes) / fixes : 0;
}

namespace {

void ReadDiskError(const StoreEvents& events, StoreStats& out) {
  const DiskErrorState e = events.disk_error();
  out.disk_failing = e.failing;
  out.disk_no_space = e.no_space;
  out.disk_writes_stopped = e.writes_stopped;
  out.disk_fatal = e.fatal;
  out.disk_error = e.message;
  out.background_errors = e.errors;
  out.error_recoveries = e.recoveries;
}

}  // namespace

StoreStats ReadStoreStats(TrackStore& store) {
  StoreStats out = ReadStoreStats(
      store.engine().db.get(), store.engine().handles, store.options(),
      store.bulk_load(),
      store.options().events
          ? std::chrono::duration<double>(StoreEvents::Clock::now() -
                                          store.options().events->created())
                .count()
          : 0);
  if (store.engine().latest_index_charge) {
    out.latest_index_bytes = store.engine().latest_index_charge->charged();
  }
  return out;
}

StoreStats ReadStoreStats(rocksdb::DB* db,
                          const std::vector<rocksdb::ColumnFamilyHandle*>& cfs,
                          const StoreOptions& options, bool bulk_load,
                          double seconds_since_open) {
  StoreStats out;
  out.seconds_since_open = seconds_since_open;
  out.bulk_load = bulk_load;
  out.memory_budget_bytes = options.config.memory_budget_mb() << 20;
  ReadDbStats(db, options, out);

  std::map<std::string, CfEventTotals> events;
  if (options.events) {
    events = options.events->Snapshot();
    ReadDiskError(*options.events, out);
  }
  for (rocksdb::ColumnFamilyHandle* handle : cfs) {
    CfStats c = ReadCfStats(db, handle, events);
    out.memtable_bytes += c.memtable_bytes;
    out.column_families.push_back(std::move(c));
  }
  return out;
}

absl::StatusOr<ReadOnlyStats> ReadStoreStatsReadOnly(
    const std::string& data_dir, const v1::StorageConfig& config) {
  ReadOnlyStats out;
  auto built = BuildStoreOptions(config);
  if (!built.ok()) return built.status();
  out.options = *std::move(built);
  rocksdb::ConfigOptions load;
  load.ignore_unknown_options = true;
  load.env = out.options.env.get();
  std::vector<rocksdb::ColumnFamilyDescriptor> cfs;
  rocksdb::DBOptions db_options;
  rocksdb::Status s = rocksdb::LoadLatestOptions(
      load, data_dir, &db_options, &cfs, &out.options.block_cache);
  if (!s.ok()) {
    return FromRocks(s, absl::StrCat("reading options of ", data_dir));
  }
  // Keep the loaded knobs; observe with ours.
  db_options.env = out.options.env.get();
  db_options.statistics = out.options.db.statistics;
  db_options.write_buffer_manager =
      db_options.db_write_buffer_size > 0
          ? std::make_shared<rocksdb::WriteBufferManager>(
                db_options.db_write_buffer_size, out.options.block_cache)
          : nullptr;
  db_options.create_if_missing = false;
  out.options.db = db_options;
  out.options.column_families = cfs;

  rocksdb::DB* raw = nullptr;
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  s = rocksdb::DB::OpenForReadOnly(db_options, data_dir, cfs, &handles, &raw);
  if (!s.ok())
    return FromRocks(s, absl::StrCat("opening ", data_dir, " read-only"));
  std::unique_ptr<rocksdb::DB> db(raw);
  out.stats = ReadStoreStats(db.get(), handles, out.options,
                             /*bulk_load=*/false, /*seconds_since_open=*/0);
  // Our observers saw only this open, not the writer's history.
  out.stats.process_rss_bytes = 0;
  for (rocksdb::ColumnFamilyHandle* h : handles) {
    db->DestroyColumnFamilyHandle(h).PermitUncheckedError();
  }
  db->Close().PermitUncheckedError();
  return out;
}

StoreStats StatsSampler::Sample(TrackStore& store) {
  StoreStats next = ReadStoreStats(store);
  AddRates(next);
  return next;
}

void StatsSampler::AddRates(StoreStats& next) {
  absl::MutexLock lock(&mu_);
  if (have_previous_) {
    const double dt = next.seconds_since_open - previous_.seconds_since_open;
    if (dt > 0) {
      const DiskWrites now = next.disk_writes();
      const DiskWrites then = previous_.disk_writes();
      next.rate_interval_seconds = dt;
      next.disk_write_bytes_per_second = (now.bytes - then.bytes) / dt;
      next.disk_writes_per_second = (now.ops - then.ops) / dt;
      next.user_bytes_per_second =
          (next.user_bytes_written - previous_.user_bytes_written) / dt;
    }
  }
  previous_ = next;
  have_previous_ = true;
}

}  // namespace trackdb::storage
