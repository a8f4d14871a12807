#include "service/jobs/collection_expirer.h"

#include <cstdio>
#include <string>

#include "model/clock.h"
#include "storage/replication/replication.h"

namespace trackdb::service {

CollectionExpirer::CollectionExpirer(storage::TrackStore* store,
                                     absl::Duration interval)
    : store_(store), interval_(interval) {
  thread_.Start([this] { Run(); });
}

void CollectionExpirer::Run() {
  do {
    // A replica's keys expire when its primary's do (replicated).
    if (storage::IsReplica(*store_)) continue;
    absl::StatusOr<int64_t> removed = store_->ExpireCollections(NowMs());
    if (removed.ok()) {
      expired_ += *removed;
    } else {
      // A disk error removes nothing; the next pass retries.
      std::fprintf(stderr, "trackd: expiring GEO keys: %s\n",
                   std::string(removed.status().message()).c_str());
    }
  } while (thread_.WaitFor(interval_));
}

}  // namespace trackdb::service
