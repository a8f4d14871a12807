#ifndef TRACKDB_SERVICE_REPLICATION_NODE_ROLE_H_
#define TRACKDB_SERVICE_REPLICATION_NODE_ROLE_H_

// A node's part in replication, as the doors drive it: the replicas that
// follow it and its synchronous acknowledgement (SyncAcks), the link that
// makes it a replica of a primary (REPLICAOF), and the slot migration that
// hands slots to another node (CLUSTERX MIGRATE). One per node; the RESP
// door's state holds it beside the users and webhooks it shares with the
// gRPC door.

#include <memory>
#include <optional>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "cluster/cluster_state.h"
#include "service/replication/replica_link.h"
#include "service/replication/slot_migrator.h"
#include "service/replication/sync_acks.h"
#include "storage/track_store.h"
#include "trackdb/v1/config.pb.h"

namespace trackdb::replication {

class NodeRole {
 public:
  // `sync_acks` (shared with the gRPC door) holds the replica registry.
  NodeRole(storage::TrackStore* store, std::shared_ptr<SyncAcks> sync_acks);
  // A role with its own SyncAcks and registry, from `config`.
  NodeRole(storage::TrackStore* store, const v1::ReplicationConfig& config);
  ~NodeRole();  // stops the link and any migration

  ReplicaRegistry& replicas() { return sync_acks_->replicas(); }
  const SyncAcks& sync_acks() const { return *sync_acks_; }

  // Follows `primary` (the store becomes a replica), or, with nullopt,
  // stops following (a primary again). Re-pointing a replica restarts its
  // link; the data it holds is brought to the new primary's by the sync.
  // Calls are serialised.
  absl::Status ReplicaOf(std::optional<LinkOptions> primary);
  // Stops the link and any migration, leaving the store a replica if it
  // was (shutdown).
  void Stop();
  // Migrates slots [first, last] of `cluster` (which outlives the
  // migration) to `destination`; FAILED_PRECONDITION while another
  // migration runs.
  absl::Status MigrateSlots(cluster::ClusterState* cluster, int first,
                            int last, LinkOptions destination);
  // The link's options and state; nullopt on a primary.
  std::optional<std::pair<LinkOptions, LinkStatus>> LinkState() const;

 private:
  storage::TrackStore* const store_;
  const std::shared_ptr<SyncAcks> sync_acks_;
  absl::Mutex replica_of_mu_;  // serialises ReplicaOf calls
  mutable absl::Mutex link_mu_;
  std::unique_ptr<ReplicaLink> link_ ABSL_GUARDED_BY(link_mu_);
  std::unique_ptr<SlotMigrator> migrator_ ABSL_GUARDED_BY(link_mu_);
};

}  // namespace trackdb::replication

#endif  // TRACKDB_SERVICE_REPLICATION_NODE_ROLE_H_
