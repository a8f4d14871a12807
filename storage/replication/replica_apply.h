#ifndef TRACKDB_STORAGE_REPLICATION_REPLICA_APPLY_H_
#define TRACKDB_STORAGE_REPLICATION_REPLICA_APPLY_H_

// Storage's own: how a replica writes what it receives
// (storage/replication/replication.h states the rules).

#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "storage/replication/replication.h"

namespace trackdb::storage {

// Writes portable batches in one write, with the mark set (or, with no
// mark and `clear_mark`, removed), and brings every derived structure
// along: the latest index, the string cache (under the strings' stripes),
// GEO keys' expiries, retention policies, and the fence registry (the
// collections whose fences or log bounds changed reloaded, holding their
// locks).
absl::Status ApplyPortable(TrackStore& store,
                           absl::Span<const std::string> portable_batches,
                           const std::optional<ReplicationMark>& mark,
                           bool clear_mark);

}  // namespace trackdb::storage

#endif  // TRACKDB_STORAGE_REPLICATION_REPLICA_APPLY_H_
