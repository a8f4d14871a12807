#ifndef TRACKDB_STORAGE_BACKUP_BACKUPS_H_
#define TRACKDB_STORAGE_BACKUP_BACKUPS_H_

// Online backups of a store into a backup dir, and a data dir made from
// one. A backup is RocksDB's (BackupEngine): the memtables are flushed, then
// the live files are copied while writes go on, each file once across
// backups (a backup after another copies only the files made since), with
// its checksum. Every piece of derived state (the latest index, fences and
// their event logs, history cells) lives in the column families, so it
// comes back with them; the data dir's one file outside RocksDB, the
// cluster's node file, is kept in the backup's metadata.
//
// A backup holds every write the store acknowledged before Create began
// (BackupInfo.sequence), and maybe some made during it.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "storage/track_store.h"

namespace rocksdb {
class BackupEngine;
}

namespace trackdb::storage {

struct BackupInfo {
  uint32_t id = 0;
  int64_t unix_s = 0;  // when it was made
  uint64_t bytes = 0;  // its files' size (shared files counted in each)
  uint32_t files = 0;
  // The store's last write when the backup began: it holds all before.
  uint64_t sequence = 0;
};

class Backups {
 public:
  // Opens the backup dir, creating it.
  static absl::StatusOr<std::unique_ptr<Backups>> Open(
      const std::string& backup_dir);
  ~Backups();

  // Backs up `store`, whose data dir is `data_dir`, then deletes all but
  // the newest `keep` backups (0: keeps them all).
  absl::StatusOr<BackupInfo> Create(TrackStore& store,
                                    const std::string& data_dir, int keep);
  // Oldest first.
  absl::StatusOr<std::vector<BackupInfo>> List();
  // NOT_FOUND when there is no backup `id`.
  absl::Status Delete(uint32_t id);

 private:
  explicit Backups(std::unique_ptr<rocksdb::BackupEngine> engine);
  absl::Mutex mu_;  // BackupEngine's calls are not all thread-safe
  std::unique_ptr<rocksdb::BackupEngine> engine_ ABSL_GUARDED_BY(mu_);
};

// The backups in `backup_dir`, oldest first, without writing to it (a
// missing dir is NOT_FOUND, not made).
absl::StatusOr<std::vector<BackupInfo>> ListBackupsIn(
    const std::string& backup_dir);

// Makes `target_dir` (which must be missing or empty) a data dir from the
// backup `id` in `backup_dir` (0: the newest), after checking every file
// against its checksum: DATA_LOSS naming the backup when one does not
// match. The restored store starts a replication history of its own, so
// that no replica takes it for the one it followed. Returns what it
// restored.
absl::StatusOr<BackupInfo> RestoreBackup(const std::string& backup_dir,
                                         uint32_t id,
                                         const std::string& target_dir);

}  // namespace trackdb::storage

#endif  // TRACKDB_STORAGE_BACKUP_BACKUPS_H_
