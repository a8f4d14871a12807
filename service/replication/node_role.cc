#include "service/replication/node_role.h"

#include <utility>

#include "storage/replication/replication.h"

namespace trackdb::replication {

NodeRole::NodeRole(storage::TrackStore* store,
                   std::shared_ptr<SyncAcks> sync_acks)
    : store_(store), sync_acks_(std::move(sync_acks)) {}

NodeRole::NodeRole(storage::TrackStore* store,
                   const v1::ReplicationConfig& config)
    : NodeRole(store, std::make_shared<SyncAcks>(
                          store, std::make_shared<ReplicaRegistry>(), config)) {
}

NodeRole::~NodeRole() { Stop(); }

void NodeRole::Stop() {
  absl::MutexLock lock(&link_mu_);
  link_.reset();
  migrator_.reset();
}

absl::Status NodeRole::MigrateSlots(cluster::ClusterState* cluster, int first,
                                    int last, LinkOptions destination) {
  absl::MutexLock lock(&link_mu_);
  if (migrator_ && migrator_->running()) {
    return absl::FailedPreconditionError("There is already a migrating slot");
  }
  migrator_.reset();
  migrator_ = std::make_unique<SlotMigrator>(store_, cluster, first, last,
                                             std::move(destination));
  return absl::OkStatus();
}

absl::Status NodeRole::ReplicaOf(std::optional<LinkOptions> primary) {
  absl::MutexLock change(&replica_of_mu_);
  std::unique_ptr<ReplicaLink> old;
  {
    absl::MutexLock lock(&link_mu_);
    old = std::move(link_);
  }
  old.reset();  // joins its thread, without holding what INFO reads
  if (!primary) return storage::SetReplica(*store_, false);
  if (absl::Status s = storage::SetReplica(*store_, true); !s.ok()) return s;
  auto link = std::make_unique<ReplicaLink>(store_, *primary);
  absl::MutexLock lock(&link_mu_);
  link_ = std::move(link);
  return absl::OkStatus();
}

std::optional<std::pair<LinkOptions, LinkStatus>> NodeRole::LinkState() const {
  absl::MutexLock lock(&link_mu_);
  if (!link_) return std::nullopt;
  return std::make_pair(link_->options(), link_->status());
}

}  // namespace trackdb::replication
