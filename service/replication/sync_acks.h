#ifndef TRACKDB_SERVICE_REPLICATION_SYNC_ACKS_H_
#define TRACKDB_SERVICE_REPLICATION_SYNC_ACKS_H_

// Synchronous acknowledgement (replication.sync_replicas): a write is
// acknowledged only once that many replicas have applied it, so that a
// failover to one of them loses no acknowledged write. Both doors ask the
// same replicas (one ReplicaRegistry, fed by the RESP door's REPL.PULL):
// before a write, whether enough are following at all (Redis's
// min-replicas-to-write, with its 10 s lag limit), and after it, whether
// they have it within replication.sync_timeout_ms.

#include <memory>

#include "absl/status/status.h"
#include "service/replication/replica_registry.h"
#include "storage/track_store.h"
#include "trackdb/v1/config.pb.h"

namespace trackdb::replication {

class SyncAcks {
 public:
  SyncAcks(storage::TrackStore* store,
           std::shared_ptr<ReplicaRegistry> replicas,
           const v1::ReplicationConfig& config);

  // Redis's min-replicas-max-lag default: a replica that has not pulled
  // for longer is not following.
  static constexpr int64_t kMaxLagMs = 10'000;

  bool enabled() const { return needed_ > 0; }
  int needed() const { return needed_; }
  int timeout_ms() const { return timeout_ms_; }
  ReplicaRegistry& replicas() const { return *replicas_; }

  // UNAVAILABLE with Redis's NOREPLICAS words when fewer than needed()
  // replicas follow.
  absl::Status CheckReplicas() const;
  // Waits until needed() replicas have every write the store holds now;
  // UNAVAILABLE when they do not within the timeout (the write is then
  // not acknowledged: it may or may not survive a failover).
  absl::Status AwaitWrites() const;

 private:
  storage::TrackStore* const store_;
  const std::shared_ptr<ReplicaRegistry> replicas_;
  const int needed_;
  const int timeout_ms_;
};

}  // namespace trackdb::replication

#endif  // TRACKDB_SERVICE_REPLICATION_SYNC_ACKS_H_
