#include "service/replication/sync_acks.h"

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "storage/replication/replication.h"

namespace trackdb::replication {

SyncAcks::SyncAcks(storage::TrackStore* store,
                   std::shared_ptr<ReplicaRegistry> replicas,
                   const v1::ReplicationConfig& config)
    : store_(store),
      replicas_(std::move(replicas)),
      needed_(static_cast<int>(config.sync_replicas())),
      timeout_ms_(static_cast<int>(config.sync_timeout_ms())) {}

absl::Status SyncAcks::CheckReplicas() const {
  if (!enabled()) return absl::OkStatus();
  if (replicas_->Good(absl::ToUnixMillis(absl::Now()), kMaxLagMs) >= needed_) {
    return absl::OkStatus();
  }
  return absl::UnavailableError(
      "NOREPLICAS Not enough good replicas to write.");
}

absl::Status SyncAcks::AwaitWrites() const {
  if (!enabled()) return absl::OkStatus();
  const uint64_t sequence = storage::LatestSequence(*store_);
  const int acked = replicas_->WaitForAcks(
      needed_, sequence, absl::Now() + absl::Milliseconds(timeout_ms_));
  if (acked >= needed_) return absl::OkStatus();
  return absl::UnavailableError(absl::StrCat(
      "not acknowledged: ", acked, " of the ", needed_,
      " replicas replication.sync_replicas asks for applied the write within ",
      timeout_ms_, " ms; it may or may not survive a failover"));
}

}  // namespace trackdb::replication
