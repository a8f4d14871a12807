#include "service/jobs/backup_job.h"

#include <cstdio>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace trackdb::service {
namespace {

std::string BackupDir(const v1::TrackdbConfig& config) {
  if (!config.storage().backup_dir().empty()) {
    return config.storage().backup_dir();
  }
  if (config.data_dir().empty()) return "";
  std::string dir = config.data_dir();
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  return dir + ".backup";
}

}  // namespace

BackupJob::BackupJob(storage::TrackStore* store,
                     const v1::TrackdbConfig& config)
    : store_(store),
      data_dir_(config.data_dir()),
      backup_dir_(BackupDir(config)),
      keep_(config.storage().has_backups_to_keep()
                ? static_cast<int>(config.storage().backups_to_keep())
                : 1) {}

BackupJob::~BackupJob() { WaitForBackground(); }

void BackupJob::WaitForBackground() {
  absl::MutexLock l(&thread_mu_);
  if (background_.joinable()) background_.join();
}

bool BackupJob::Claim() {
  absl::MutexLock l(&mu_);
  if (state_.in_progress) return false;
  state_.in_progress = true;
  state_.started_unix_s = absl::ToUnixSeconds(absl::Now());
  return true;
}

bool BackupJob::StartInBackground() {
  if (!Claim()) return false;
  // The slot was free, so the thread before (if any) has ended or is
  // ending: joining it waits no longer than its last statement.
  absl::MutexLock l(&thread_mu_);
  if (background_.joinable()) background_.join();
  background_ = std::thread([this] { Run().IgnoreError(); });
  return true;
}

absl::StatusOr<storage::BackupInfo> BackupJob::RunNow() {
  if (!Claim()) {
    return absl::FailedPreconditionError("a backup is already in progress");
  }
  return Run();
}

absl::StatusOr<storage::Backups*> BackupJob::Open() {
  if (backups_ == nullptr) {
    if (backup_dir_.empty()) {
      return absl::FailedPreconditionError(
          "no backup dir: set storage.backup_dir (or data_dir)");
    }
    absl::StatusOr<std::unique_ptr<storage::Backups>> opened =
        storage::Backups::Open(backup_dir_);
    if (!opened.ok()) return opened.status();
    backups_ = *std::move(opened);
  }
  return backups_.get();
}

absl::StatusOr<storage::BackupInfo> BackupJob::Run() {
  const absl::Time start = absl::Now();
  absl::StatusOr<storage::Backups*> backups;
  {
    absl::MutexLock l(&mu_);
    backups = Open();
  }
  absl::StatusOr<storage::BackupInfo> info =
      backups.ok() ? (*backups)->Create(*store_, data_dir_, keep_)
                   : absl::StatusOr<storage::BackupInfo>(backups.status());
  absl::MutexLock l(&mu_);
  state_.in_progress = false;
  state_.last_ok = info.ok();
  state_.last_duration_ms = absl::ToInt64Milliseconds(absl::Now() - start);
  if (info.ok()) {
    state_.last_success_unix_s = info->unix_s;
    state_.last_error.clear();
    std::fprintf(stderr, "trackd: backup %u into %s done in %lld ms\n",
                 info->id, backup_dir_.c_str(),
                 static_cast<long long>(state_.last_duration_ms));
  } else {
    state_.last_error = info.status().ToString();
    std::fprintf(stderr, "trackd: backup into %s failed: %s\n",
                 backup_dir_.c_str(), state_.last_error.c_str());
  }
  return info;
}

BackupJob::State BackupJob::state() const {
  absl::MutexLock l(&mu_);
  return state_;
}

// Backups, once open, stays: it is used outside the lock (its calls are
// serialised by its own), so that state() never waits for a backup.
absl::StatusOr<std::vector<storage::BackupInfo>> BackupJob::List() {
  absl::StatusOr<storage::Backups*> backups;
  {
    absl::MutexLock l(&mu_);
    backups = Open();
  }
  if (!backups.ok()) return backups.status();
  return (*backups)->List();
}

absl::Status BackupJob::Delete(uint32_t id) {
  absl::StatusOr<storage::Backups*> backups;
  {
    absl::MutexLock l(&mu_);
    backups = Open();
  }
  if (!backups.ok()) return backups.status();
  return (*backups)->Delete(id);
}

}  // namespace trackdb::service
