#ifndef TRACKDB_SERVICE_JOBS_HISTORY_FOLDER_H_
#define TRACKDB_SERVICE_JOBS_HISTORY_FOLDER_H_

// Folds history into chunks in the background (storage/history_chunker.h):
// a thread runs HistoryChunker::FoldAll every `interval`, and once at
// start, so that an entity's raw fixes stay below options.min_fixes, or
// are folded within an interval of going idle. Writes keep their one key a
// fix: what they cost does not change; the folder pays for the bytes a fix
// saves on disk. A replica folds nothing: its primary's folds reach it as
// batches.

#include <cstdint>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "service/jobs/stoppable_thread.h"
#include "storage/history_chunker.h"
#include "storage/track_store.h"

namespace trackdb::service {

class HistoryFolder {
 public:
  HistoryFolder(storage::TrackStore* store, absl::Duration interval,
                storage::FoldOptions options = {});
  // The destructor stops the thread, after a pass under way.

  // Raw fixes moved into chunks so far.
  uint64_t fixes_folded() const;

 private:
  void Run();
  void Pass();

  storage::TrackStore* const store_;
  const absl::Duration interval_;
  const storage::FoldOptions options_;
  mutable absl::Mutex mu_;
  uint64_t fixes_folded_ ABSL_GUARDED_BY(mu_) = 0;
  StoppableThread thread_;
};

}  // namespace trackdb::service

#endif  // TRACKDB_SERVICE_JOBS_HISTORY_FOLDER_H_
