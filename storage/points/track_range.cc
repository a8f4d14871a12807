#include "storage/points/track_range.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "model/limits.h"

namespace trackdb::storage {

absl::StatusOr<std::vector<model::TrackPoint>> ReadTrackRange(
    TrackStore& store, const TrackQuery& range, size_t max_fixes,
    const std::function<bool()>& cancelled) {
  TrackQuery q = range;
  q.limit = model::kMaxPageSize;
  q.descending = false;
  q.page_token.clear();
  std::vector<model::TrackPoint> points;
  do {
    if (cancelled && cancelled()) return absl::CancelledError("cancelled");
    absl::StatusOr<TrackPage> page = store.GetTrack(q);
    if (!page.ok()) return page.status();
    if (points.size() + page->points.size() > max_fixes) {
      return absl::ResourceExhaustedError(
          absl::StrCat("the time range holds more than ", max_fixes,
                       " fixes: analyze a shorter one"));
    }
    for (model::TrackPoint& p : page->points) {
      p.entity.clear();
      p.attributes.clear();
      points.push_back(std::move(p));
    }
    q.page_token = page->next_page_token;
  } while (!q.page_token.empty());
  return points;
}

}  // namespace trackdb::storage
