#ifndef TRACKDB_STORAGE_ENGINE_STORE_EVENTS_H_
#define TRACKDB_STORAGE_ENGINE_STORE_EVENTS_H_

// StoreEvents: a RocksDB EventListener that keeps, per column family, what
// RocksDB's properties do not: how many flushes and how large, compaction
// output bytes, and how long writes were slowed down or stopped (entered
// and left through OnStallConditionsChanged). Totals only grow; a state
// still in force counts up to the moment of Snapshot(). It also keeps the
// background error RocksDB is in, if any (a full or failing disk: writes
// refused until RocksDB recovers), which RocksDB reports only through
// listeners.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <string>

#include "absl/synchronization/mutex.h"
#include "rocksdb/listener.h"

namespace trackdb::storage {

struct CfEventTotals {
  uint64_t flushes = 0;
  uint64_t flush_bytes = 0;      // SST bytes written by flushes
  uint64_t flush_raw_bytes = 0;  // uncompressed keys + values flushed
  uint64_t compactions = 0;
  uint64_t compaction_bytes = 0;  // SST bytes written by compactions
  uint64_t slowdowns = 0;         // times writes entered "delayed"
  uint64_t stops = 0;             // times writes entered "stopped"
  double slowdown_seconds = 0;
  double stop_seconds = 0;
  bool slowed_now = false;
  bool stopped_now = false;
};

// RocksDB's background error, if it is in one.
struct DiskErrorState {
  bool failing = false;         // in a background error now
  bool no_space = false;        // ... and it is a full disk
  bool writes_stopped = false;  // ... severe enough to refuse writes
  // ... and RocksDB will not recover from it while open (an I/O error
  // other than a full disk): writes come back when trackd restarts.
  bool fatal = false;
  std::string message;      // RocksDB's words; empty when not failing
  uint64_t errors = 0;      // background errors since open
  uint64_t recoveries = 0;  // recoveries from them since open
};

class StoreEvents : public rocksdb::EventListener {
 public:
  using Clock = std::chrono::steady_clock;

  const char* Name() const override { return "TrackdbStoreEvents"; }

  void OnFlushCompleted(rocksdb::DB* db,
                        const rocksdb::FlushJobInfo& info) override;
  void OnCompactionCompleted(rocksdb::DB* db,
                             const rocksdb::CompactionJobInfo& info) override;
  void OnStallConditionsChanged(const rocksdb::WriteStallInfo& info) override;
  void OnBackgroundError(rocksdb::BackgroundErrorReason reason,
                         rocksdb::Status* error) override;
  void OnErrorRecoveryEnd(
      const rocksdb::BackgroundErrorRecoveryInfo& info) override;

  DiskErrorState disk_error() const;
  // Whether RocksDB stops writes now (a column family in "stopped").
  bool writes_stopped() const { return stopped_cfs_.load() > 0; }

  // When this listener was made (just before the DB opened).
  Clock::time_point created() const { return created_; }

  // The totals of every column family seen so far, by name.
  std::map<std::string, CfEventTotals> Snapshot() const;

  // For tests: what the callbacks record, with an explicit time.
  void RecordFlush(const std::string& cf, uint64_t bytes, uint64_t raw_bytes);
  void RecordStall(const std::string& cf, rocksdb::WriteStallCondition now,
                   Clock::time_point at);
  std::map<std::string, CfEventTotals> SnapshotAt(Clock::time_point at) const;

 private:
  struct Cf {
    CfEventTotals totals;
    rocksdb::WriteStallCondition condition =
        rocksdb::WriteStallCondition::kNormal;
    Clock::time_point since;
  };
  const Clock::time_point created_ = Clock::now();
  mutable absl::Mutex mu_;
  std::map<std::string, Cf> cfs_ ABSL_GUARDED_BY(mu_);
  DiskErrorState disk_error_ ABSL_GUARDED_BY(mu_);
  std::atomic<int> stopped_cfs_{0};
};

}  // namespace trackdb::storage

#endif  // TRACKDB_STORAGE_ENGINE_STORE_EVENTS_H_
