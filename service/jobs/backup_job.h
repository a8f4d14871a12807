#ifndef TRACKDB_SERVICE_JOBS_BACKUP_JOB_H_
#define TRACKDB_SERVICE_JOBS_BACKUP_JOB_H_

// The server's backups (storage/backup/backups.h) into storage.backup_dir:
// one at a time, in the background (BGSAVE) or on the caller's thread
// (SAVE), with what Redis's LASTSAVE and INFO persistence report.

#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "storage/backup/backups.h"
#include "storage/track_store.h"
#include "trackdb/v1/config.pb.h"

namespace trackdb::service {

class BackupJob {
 public:
  // `store` outlives the job. The backup dir is opened at the first backup.
  BackupJob(storage::TrackStore* store, const v1::TrackdbConfig& config);
  ~BackupJob();  // waits for a backup in the background to end

  // The dir backups go to; empty when none can be known (no data_dir and
  // no storage.backup_dir).
  const std::string& backup_dir() const { return backup_dir_; }

  // Starts a backup on a thread of its own: false when one is running.
  bool StartInBackground();
  // A backup on this thread; FAILED_PRECONDITION while another runs.
  absl::StatusOr<storage::BackupInfo> RunNow();
  // Until a backup started in the background has ended (before the store
  // closes).
  void WaitForBackground();

  struct State {
    bool in_progress = false;
    int64_t last_success_unix_s = 0;  // 0: none yet
    bool last_ok = true;              // of the last that ended
    std::string last_error;
    int64_t last_duration_ms = -1;  // -1: none ended yet
    int64_t started_unix_s = 0;     // of the one in progress
  };
  State state() const;

  absl::StatusOr<std::vector<storage::BackupInfo>> List();
  absl::Status Delete(uint32_t id);

 private:
  // Claims the one backup slot: false when taken.
  bool Claim();
  absl::StatusOr<storage::BackupInfo> Run();
  absl::StatusOr<storage::Backups*> Open() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  storage::TrackStore* const store_;
  const std::string data_dir_;
  const std::string backup_dir_;
  const int keep_;
  mutable absl::Mutex mu_;
  std::unique_ptr<storage::Backups> backups_ ABSL_GUARDED_BY(mu_);
  State state_ ABSL_GUARDED_BY(mu_);
  absl::Mutex thread_mu_;  // never held with mu_ waited for
  std::thread background_ ABSL_GUARDED_BY(thread_mu_);
};

}  // namespace trackdb::service

#endif  // TRACKDB_SERVICE_JOBS_BACKUP_JOB_H_
