#ifndef TRACKDB_SERVICE_FENCE_LOG_TRIMMER_H_
#define TRACKDB_SERVICE_FENCE_LOG_TRIMMER_H_

// Enforces the fence event logs' retention (storage.fence_log_max_age_s,
// storage.fence_log_max_events): a thread that calls
// TrackStore::TrimFenceLogs every `interval`, and once at start, so that a
// log stays within its limits by at most one interval's events.

#include <cstdint>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "service/stoppable_thread.h"
#include "storage/track_store.h"

namespace trackdb::service {

class FenceLogTrimmer {
 public:
  FenceLogTrimmer(storage::TrackStore* store, absl::Duration interval);
  // The destructor stops the thread, after a pass under way.

  // Offsets removed so far.
  uint64_t removed() const;

 private:
  void Run();

  storage::TrackStore* const store_;
  const absl::Duration interval_;
  mutable absl::Mutex mu_;
  uint64_t removed_ ABSL_GUARDED_BY(mu_) = 0;
  StoppableThread thread_;
};

}  // namespace trackdb::service

#endif  // TRACKDB_SERVICE_FENCE_LOG_TRIMMER_H_
