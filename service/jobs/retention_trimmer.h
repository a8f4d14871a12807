#ifndef TRACKDB_SERVICE_JOBS_RETENTION_TRIMMER_H_
#define TRACKDB_SERVICE_JOBS_RETENTION_TRIMMER_H_

// Enforces the retention that needs writes: the fence event logs'
// (storage.fence_log_max_age_s, storage.fence_log_max_events) through
// FenceStore::TrimLogs, and the collections' (storage/points/retention.h)
// expiring latest points through RetentionStore::ExpireEntities and fixes per
// entity through RetentionStore::TrimHistories. A thread runs them every
// `interval`, and once at start, so that each stays within its limits by
// at most one interval. (Expired history needs no pass: reads
// hide it and compaction drops it.)

#include <cstdint>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "service/jobs/stoppable_thread.h"
#include "storage/track_store.h"

namespace trackdb::service {

class RetentionTrimmer {
 public:
  RetentionTrimmer(storage::TrackStore* store, absl::Duration interval);
  // The destructor stops the thread, after a pass under way.

  // Fence log offsets, entities and history points removed so far.
  uint64_t fence_events_removed() const;
  uint64_t entities_expired() const;
  uint64_t points_trimmed() const;

 private:
  void Run();
  void Pass();

  storage::TrackStore* const store_;
  const absl::Duration interval_;
  mutable absl::Mutex mu_;
  uint64_t fence_events_removed_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t entities_expired_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t points_trimmed_ ABSL_GUARDED_BY(mu_) = 0;
  StoppableThread thread_;
};

}  // namespace trackdb::service

#endif  // TRACKDB_SERVICE_JOBS_RETENTION_TRIMMER_H_
