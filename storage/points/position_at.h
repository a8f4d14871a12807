#ifndef TRACKDB_STORAGE_POINTS_POSITION_AT_H_
#define TRACKDB_STORAGE_POINTS_POSITION_AT_H_

// Where an entity was at a time: from its fix at or before the time and the
// first fix after it (TrackStore::GetFixesAround: one read of its history,
// whatever its length).
//
// kInterpolate: a fix at exactly the time is the answer; otherwise the
// position is along the great circle between the two fixes around the
// time, at the fraction of their interval the time is at (index/
// interpolate.h): constant speed, no turn. A time before the first fix or
// after the last has no answer (OUT_OF_RANGE), nor have fixes further apart
// than max_gap_ms (a tunnel, a parked tracker: what happened between them
// is not known).
// kNearest: the fix nearest in time (the earlier of two equally near),
// unless it is more than max_gap_ms away (OUT_OF_RANGE).
// An entity without fixes: NOT_FOUND.

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "index/latlng.h"
#include "model/track_point.h"
#include "storage/track_store.h"

namespace trackdb::storage {

struct PositionAtQuery {
  enum class Method { kInterpolate, kNearest };
  std::string collection;
  std::string entity;
  int64_t time_ms = 0;
  Method method = Method::kInterpolate;
  int64_t max_gap_ms = 0;  // 0: no limit
};

struct PositionAt {
  index::LatLng position;
  // The fixes the answer comes from: the one at or before time_ms, the one
  // after it; one of them for an exact fix or kNearest.
  std::optional<model::TrackPoint> before;
  std::optional<model::TrackPoint> after;
};

absl::StatusOr<PositionAt> GetPositionAt(TrackStore& store,
                                         const PositionAtQuery& query);

// The decision alone, from the fixes around the time (none when the track
// has none on that side).
absl::StatusOr<PositionAt> PositionBetween(
    const std::optional<model::TrackPoint>& before,
    const std::optional<model::TrackPoint>& after,
    const PositionAtQuery& query);

}  // namespace trackdb::storage

#endif  // TRACKDB_STORAGE_POINTS_POSITION_AT_H_
