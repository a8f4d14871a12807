#ifndef TRACKDB_SERVICE_JOBS_COLLECTION_EXPIRER_H_
#define TRACKDB_SERVICE_JOBS_COLLECTION_EXPIRER_H_

// Removes GEO keys whose expiry has passed (storage/collections/collection_expiry.h):
// a thread calls TrackStore::ExpireCollections every `interval`, so that
// an expired collection's points leave the store, and every read of them,
// within about one interval, as Redis's active expiry removes keys nobody
// touches. (The Redis door already sees the key as absent once due.) A
// pass with no expiring collection costs one atomic load.

#include <cstdint>

#include "absl/time/time.h"
#include "service/jobs/stoppable_thread.h"
#include "storage/track_store.h"

namespace trackdb::service {

class CollectionExpirer {
 public:
  CollectionExpirer(storage::TrackStore* store, absl::Duration interval);
  // The destructor stops the thread, after a pass under way.

  // Collections removed so far.
  int64_t expired() const { return expired_.load(); }

 private:
  void Run();

  storage::TrackStore* const store_;
  const absl::Duration interval_;
  std::atomic<int64_t> expired_{0};
  StoppableThread thread_;
};

}  // namespace trackdb::service

#endif  // TRACKDB_SERVICE_JOBS_COLLECTION_EXPIRER_H_
