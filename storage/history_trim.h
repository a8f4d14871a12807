#ifndef TRACKDB_STORAGE_HISTORY_TRIM_H_
#define TRACKDB_STORAGE_HISTORY_TRIM_H_

// Retention's limit of fixes per entity (storage/points/retention.h
// max_points) over the whole history, raw fixes and chunks alike: what lies
// before the oldest of the newest `max` fixes goes in one batch (raw keys
// deleted, chunks before it deleted, the chunk across it rewritten from it
// on). The caller holds the entity's stripe and its collection's lock
// shared, as a points write does (RetentionStore::TrimHistories).

#include <cstdint>
#include <optional>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "storage/engine/engine.h"

namespace trackdb::storage {

struct HistoryTrim {
  uint64_t removed = 0;                // fixes removed
  int64_t oldest_kept_ms = INT64_MIN;  // INT64_MIN: the entity has none
};

// Keeps the entity's newest `max` (>= 1) fixes, counting forward from
// `from_ms` (the oldest fix the last trim kept) when that finds `max`.
absl::StatusOr<HistoryTrim> TrimEntityHistory(Engine& engine,
                                              absl::string_view collection,
                                              absl::string_view entity,
                                              uint64_t max,
                                              std::optional<int64_t> from_ms);

}  // namespace trackdb::storage

#endif  // TRACKDB_STORAGE_HISTORY_TRIM_H_
