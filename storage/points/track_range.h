#ifndef TRACKDB_STORAGE_POINTS_TRACK_RANGE_H_
#define TRACKDB_STORAGE_POINTS_TRACK_RANGE_H_

// A time range of an entity's track read whole into memory, oldest first,
// for analyses that need every fix (AnalyzeTrack on both doors): paged
// reads of GetTrack, bounded by `max_fixes` so that one request cannot
// hold a year of fixes in memory.

#include <cstddef>
#include <functional>
#include <vector>

#include "absl/status/statusor.h"
#include "model/track_point.h"
#include "storage/track_store.h"

namespace trackdb::storage {

// `range`'s collection, entity, start_ms and end_ms are read (its paging
// fields are not). Each fix keeps its time, position, speed, direction,
// height and accuracy; its entity and attributes are left empty, to hold
// a large range in little memory. RESOURCE_EXHAUSTED when the range holds
// more than `max_fixes`; CANCELLED when `cancelled` (may be empty) says so
// between pages.
absl::StatusOr<std::vector<model::TrackPoint>> ReadTrackRange(
    TrackStore& store, const TrackQuery& range, size_t max_fixes,
    const std::function<bool()>& cancelled = nullptr);

}  // namespace trackdb::storage

#endif  // TRACKDB_STORAGE_POINTS_TRACK_RANGE_H_
