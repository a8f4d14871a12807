#ifndef TRACKDB_STORAGE_RETENTION_STORE_H_
#define TRACKDB_STORAGE_RETENTION_STORE_H_

// RetentionStore: how long each collection's history is kept
// (storage/retention_store.cc; the rules: storage/points/retention.h). It
// owns the collections' policies (stored in the default column family,
// loaded into memory on open) and the two passes that apply them: the
// expiry of entities whose latest point is past its collection's cutoff,
// and the trimming of each entity's history to its newest max_points
// fixes. Reads clamp their time ranges to HistoryCutoff, so that what a
// pass has not yet removed is not shown; the compaction filter
// (storage/points/history_expiry.h) drops expired fixes on its own.
//
// TrackStore owns one (TrackStore::retention()).

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "storage/engine/collection_lock_table.h"
#include "storage/engine/entity_locks.h"
#include "storage/history_trim.h"
#include "storage/points/retention.h"

namespace trackdb::storage {

struct Engine;

class RetentionStore {
 public:
  RetentionStore(Engine* engine, CollectionLockTable* collection_locks,
                 EntityLocks* entity_locks)
      : engine_(engine),
        collection_locks_(collection_locks),
        entity_locks_(entity_locks) {}

  // Sets `collection`'s policy (one that keeps everything removes it).
  // INVALID_ARGUMENT naming max_age_ms, expire_latest or max_points,
  // setting nothing.
  absl::Status Set(absl::string_view collection, const RetentionPolicy& policy);
  RetentionPolicy Get(absl::string_view collection) const;
  // The oldest loc_time `collection`'s history shows at `now_ms`
  // (INT64_MIN: every one): reads clamp their ranges to it.
  int64_t HistoryCutoff(absl::string_view collection, int64_t now_ms) const;
  // Removes, as TrackStore::DeleteEntity does, every entity whose latest
  // point is older than its collection's cutoff at `now_ms`, in
  // collections whose policy says expire_latest; returns how many. Safe
  // beside writers: an entity written meanwhile stays.
  absl::StatusOr<int64_t> ExpireEntities(int64_t now_ms);
  // Removes, from each entity of a collection whose policy has max_points,
  // the fixes older than its newest max_points, in one range deletion;
  // returns how many. Entities whose latest point has not changed since
  // their last trim are skipped. Safe beside writers.
  absl::StatusOr<int64_t> TrimHistories();
  // What retention removed since open.
  RetentionCounters counters() const;

 private:
  // Expires those of `entities` still older than `cutoff_ms`, in one batch;
  // how many.
  absl::StatusOr<size_t> ExpireSome(absl::string_view collection,
                                    absl::Span<const std::string> entities,
                                    int64_t cutoff_ms);
  // Keeps one entity's newest `max_points` fixes, counting forward from
  // `from_ms` (the oldest fix its last trim kept) when it can.
  using HistoryTrim = storage::HistoryTrim;
  absl::StatusOr<HistoryTrim> TrimHistory(absl::string_view collection,
                                          absl::string_view entity,
                                          int64_t max_points,
                                          std::optional<int64_t> from_ms);

  Engine* const engine_;
  CollectionLockTable* const collection_locks_;
  EntityLocks* const entity_locks_;
};

}  // namespace trackdb::storage

#endif  // TRACKDB_STORAGE_RETENTION_STORE_H_
