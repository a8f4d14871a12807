#include "storage/engine/store_events.h"

#include <filesystem>
#include <system_error>

namespace trackdb::storage {
namespace {

double Seconds(StoreEvents::Clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

}  // namespace

void StoreEvents::OnFlushCompleted(rocksdb::DB*,
                                   const rocksdb::FlushJobInfo& info) {
  std::error_code error;
  uint64_t bytes = std::filesystem::file_size(info.file_path, error);
  if (error) {
    const rocksdb::TableProperties& p = info.table_properties;
    bytes = p.data_size + p.index_size + p.filter_size;
  }
  RecordFlush(info.cf_name, bytes,
              info.table_properties.raw_key_size +
                  info.table_properties.raw_value_size);
}

void StoreEvents::OnCompactionCompleted(
    rocksdb::DB*, const rocksdb::CompactionJobInfo& info) {
  if (!info.status.ok()) return;
  absl::MutexLock lock(&mu_);
  CfEventTotals& t = cfs_[info.cf_name].totals;
  ++t.compactions;
  t.compaction_bytes += info.stats.total_output_bytes;
}

void StoreEvents::OnStallConditionsChanged(
    const rocksdb::WriteStallInfo& info) {
  RecordStall(info.cf_name, info.condition.cur, Clock::now());
}

void StoreEvents::OnBackgroundError(rocksdb::BackgroundErrorReason,
                                    rocksdb::Status* error) {
  absl::MutexLock lock(&mu_);
  ++disk_error_.errors;
  disk_error_.failing = true;
  disk_error_.no_space = error->IsNoSpace();
  disk_error_.writes_stopped =
      error->severity() >= rocksdb::Status::Severity::kHardError;
  disk_error_.fatal =
      error->severity() >= rocksdb::Status::Severity::kFatalError;
  disk_error_.message = error->ToString();
}

void StoreEvents::OnErrorRecoveryEnd(
    const rocksdb::BackgroundErrorRecoveryInfo& info) {
  if (!info.new_bg_error.ok()) return;  // still failing: the error stays
  absl::MutexLock lock(&mu_);
  ++disk_error_.recoveries;
  const uint64_t errors = disk_error_.errors;
  const uint64_t recoveries = disk_error_.recoveries;
  disk_error_ = DiskErrorState();
  disk_error_.errors = errors;
  disk_error_.recoveries = recoveries;
}

DiskErrorState StoreEvents::disk_error() const {
  absl::MutexLock lock(&mu_);
  return disk_error_;
}

void StoreEvents::RecordFlush(const std::string& cf, uint64_t bytes,
                              uint64_t raw_bytes) {
  absl::MutexLock lock(&mu_);
  CfEventTotals& t = cfs_[cf].totals;
  ++t.flushes;
  t.flush_bytes += bytes;
  t.flush_raw_bytes += raw_bytes;
}

void StoreEvents::RecordStall(const std::string& name,
                              rocksdb::WriteStallCondition now,
                              Clock::time_point at) {
  absl::MutexLock lock(&mu_);
  Cf& cf = cfs_[name];
  // Close the state being left.
  if (cf.condition == rocksdb::WriteStallCondition::kDelayed) {
    cf.totals.slowdown_seconds += Seconds(at - cf.since);
  } else if (cf.condition == rocksdb::WriteStallCondition::kStopped) {
    cf.totals.stop_seconds += Seconds(at - cf.since);
  }
  const bool was_stopped =
      cf.condition == rocksdb::WriteStallCondition::kStopped;
  const bool stopped = now == rocksdb::WriteStallCondition::kStopped;
  if (stopped != was_stopped) stopped_cfs_.fetch_add(stopped ? 1 : -1);
  if (now == rocksdb::WriteStallCondition::kDelayed) ++cf.totals.slowdowns;
  if (now == rocksdb::WriteStallCondition::kStopped) ++cf.totals.stops;
  cf.condition = now;
  cf.since = at;
}

std::map<std::string, CfEventTotals> StoreEvents::Snapshot() const {
  return SnapshotAt(Clock::now());
}

std::map<std::string, CfEventTotals> StoreEvents::SnapshotAt(
    Clock::time_point at) const {
  absl::MutexLock lock(&mu_);
  std::map<std::string, CfEventTotals> out;
  for (const auto& [name, cf] : cfs_) {
    CfEventTotals t = cf.totals;
    t.slowed_now = cf.condition == rocksdb::WriteStallCondition::kDelayed;
    t.stopped_now = cf.condition == rocksdb::WriteStallCondition::kStopped;
    if (t.slowed_now) t.slowdown_seconds += Seconds(at - cf.since);
    if (t.stopped_now) t.stop_seconds += Seconds(at - cf.since);
    out[name] = t;
  }
  return out;
}

}  // namespace trackdb::storage
