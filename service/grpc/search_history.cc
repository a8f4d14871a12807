// TrackService.SearchHistory: the area checked as the latest-position
// searches check theirs, the time range as GetTrack's, then one page from
// storage (TrackStore::SearchHistory).
#include <memory>
#include <optional>

#include "absl/strings/str_cat.h"
#include "model/validate.h"
#include "service/grpc/grpc_status.h"
#include "service/grpc/point_convert.h"
#include "service/grpc/search_area.h"
#include "service/grpc/track_service.h"

namespace trackdb::service {
namespace {

const v1::LatLng* Optional(bool has, const v1::LatLng& v) {
  return has ? &v : nullptr;
}

// The request's area, or INVALID_ARGUMENT naming its field.
absl::StatusOr<std::unique_ptr<index::Region>> AreaOf(
    const v1::SearchHistoryRequest& request, const model::Limits& limits) {
  switch (request.area_case()) {
    case v1::SearchHistoryRequest::kBounds: {
      const v1::BoundsArea& a = request.bounds();
      auto rect =
          BoundsRegion(Optional(a.has_south_west(), a.south_west()),
                       Optional(a.has_north_east(), a.north_east()), "bounds.");
      if (!rect.ok()) return rect.status();
      return std::make_unique<index::RectRegion>(*rect);
    }
    case v1::SearchHistoryRequest::kCircle: {
      const v1::CircleArea& a = request.circle();
      auto circle = CircleRegionOf(Optional(a.has_center(), a.center()),
                                   a.radius_m(), limits, "circle.");
      if (!circle.ok()) return circle.status();
      return std::make_unique<index::CircleRegion>(*circle);
    }
    case v1::SearchHistoryRequest::kPolygon: {
      auto polygon =
          PolygonRegionOf(request.polygon().vertices(), limits, "polygon.");
      if (!polygon.ok()) return polygon.status();
      return std::make_unique<index::PolygonRegion>(*std::move(polygon));
    }
    default:
      return absl::InvalidArgumentError(
          "an area is required: bounds, circle or polygon");
  }
}

}  // namespace

grpc::Status TrackServiceImpl::SearchHistory(
    grpc::ServerContext*, const v1::SearchHistoryRequest* request,
    v1::SearchHistoryResponse* response) {
  if (absl::Status s = ValidateCollectionField(request->collection());
      !s.ok()) {
    return ToGrpc(s);
  }
  auto area = AreaOf(*request, limits_);
  if (!area.ok()) return ToGrpc(area.status());
  uint32_t page_size = 0;
  if (absl::Status s = model::ValidatePageSize(request->page_size(),
                                               "page_size", &page_size);
      !s.ok()) {
    return ToGrpc(s);
  }
  storage::HistoryQuery q;
  q.collection = request->collection();
  q.region = area->get();
  if (absl::Status s =
          TimeRangeFields(request->start_time_ms(), request->end_time_ms(),
                          &q.start_ms, &q.end_ms);
      !s.ok()) {
    return ToGrpc(s);
  }
  q.per_entity = request->per_entity();
  q.limit = static_cast<int>(page_size);
  q.page_token = request->page_token();
  absl::StatusOr<storage::HistoryPage> page = store_->SearchHistory(q);
  if (!page.ok()) return ToGrpc(page.status());
  for (const model::TrackPoint& p : page->points) {
    ToProtoPoint(p, false, response->add_points());
  }
  for (const storage::HistoryVisit& v : page->visits) {
    v1::HistoryVisit* out = response->add_visits();
    ToProtoPoint(v.first, false, out->mutable_first());
    ToProtoPoint(v.last, false, out->mutable_last());
    out->set_fixes(v.fixes);
  }
  response->set_next_page_token(page->next_page_token);
  return grpc::Status::OK;
}

}  // namespace trackdb::service
