#include "storage/points/position_at.h"

#include <cstdlib>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "index/interpolate.h"

namespace trackdb::storage {
namespace {

index::LatLng Position(const model::TrackPoint& p) { return {p.lat, p.lon}; }

absl::StatusOr<PositionAt> Nearest(
    const std::optional<model::TrackPoint>& before,
    const std::optional<model::TrackPoint>& after, const PositionAtQuery& q) {
  // Differences of int64 times may overflow: compare in double.
  const double to_before =
      before ? static_cast<double>(q.time_ms) - before->loc_time_ms : 0;
  const double to_after =
      after ? static_cast<double>(after->loc_time_ms) - q.time_ms : 0;
  const bool use_before = before && (!after || to_before <= to_after);
  const double gap = use_before ? to_before : to_after;
  if (q.max_gap_ms > 0 && gap > q.max_gap_ms) {
    return absl::OutOfRangeError(absl::StrCat(
        "the nearest fix is ", absl::StrFormat("%.0f", gap),
        " ms from time_ms, more than max_gap_ms (", q.max_gap_ms, ")"));
  }
  PositionAt out;
  const model::TrackPoint& fix = use_before ? *before : *after;
  out.position = Position(fix);
  (use_before ? out.before : out.after) = fix;
  return out;
}

}  // namespace

absl::StatusOr<PositionAt> PositionBetween(
    const std::optional<model::TrackPoint>& before,
    const std::optional<model::TrackPoint>& after, const PositionAtQuery& q) {
  if (!before && !after) {
    return absl::NotFoundError(absl::StrCat("entity \"", q.entity,
                                            "\" has no fix in collection \"",
                                            q.collection, "\""));
  }
  if (q.method == PositionAtQuery::Method::kNearest) {
    return Nearest(before, after, q);
  }
  PositionAt out;
  if (before && before->loc_time_ms == q.time_ms) {
    out.position = Position(*before);
    out.before = before;
    return out;
  }
  if (!before || !after) {
    return absl::OutOfRangeError(
        absl::StrCat("time_ms ", q.time_ms, " is ",
                     before ? "after the last" : "before the first", " fix (",
                     before ? before->loc_time_ms : after->loc_time_ms,
                     "): nothing to interpolate from"));
  }
  const double gap =
      static_cast<double>(after->loc_time_ms) - before->loc_time_ms;
  if (q.max_gap_ms > 0 && gap > q.max_gap_ms) {
    return absl::OutOfRangeError(absl::StrCat(
        "the fixes around time_ms are ", absl::StrFormat("%.0f", gap),
        " ms apart, more than max_gap_ms (", q.max_gap_ms, ")"));
  }
  const double fraction =
      (static_cast<double>(q.time_ms) - before->loc_time_ms) / gap;
  out.position = index::InterpolateGreatCircle(Position(*before),
                                               Position(*after), fraction);
  out.before = before;
  out.after = after;
  return out;
}

absl::StatusOr<PositionAt> GetPositionAt(TrackStore& store,
                                         const PositionAtQuery& query) {
  absl::StatusOr<FixesAround> around =
      store.GetFixesAround(query.collection, query.entity, query.time_ms);
  if (!around.ok()) return around.status();
  return PositionBetween(around->before, around->after, query);
}

}  // namespace trackdb::storage
