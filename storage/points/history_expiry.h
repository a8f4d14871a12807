#ifndef TRACKDB_STORAGE_POINTS_HISTORY_EXPIRY_H_
#define TRACKDB_STORAGE_POINTS_HISTORY_EXPIRY_H_

// The compaction filter that reclaims expired history (storage/
// retention.h): on `points`, it drops every point whose loc_time is older
// than its collection's cutoff, read once per compaction from `policies`,
// and counts what it dropped there. With no policy at all it makes no
// filter, so compactions of a store without retention pay nothing.

#include <memory>

#include "rocksdb/compaction_filter.h"
#include "storage/strings/kv_expiry.h"
#include "storage/points/retention.h"

namespace trackdb::storage {

std::shared_ptr<rocksdb::CompactionFilterFactory>
NewExpiredHistoryFilterFactory(std::shared_ptr<RetentionPolicies> policies,
                               ClockMs clock = SystemNowMs);

// The same on `chunks`: a chunk wholly older than the cutoff is dropped,
// one across it rewritten without its expired fixes.
std::shared_ptr<rocksdb::CompactionFilterFactory>
NewExpiredChunkFilterFactory(std::shared_ptr<RetentionPolicies> policies,
                             ClockMs clock = SystemNowMs);

}  // namespace trackdb::storage

#endif  // TRACKDB_STORAGE_POINTS_HISTORY_EXPIRY_H_
