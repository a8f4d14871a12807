#ifndef TRACKDB_SERVICE_GRPC_SEARCH_AREA_H_
#define TRACKDB_SERVICE_GRPC_SEARCH_AREA_H_

// The areas of gRPC searches, checked once for every call that takes one
// (SearchBounds, SearchRadius, SearchPolygon, SearchHistory): the region,
// or INVALID_ARGUMENT naming the field under `prefix` (e.g. "circle.").

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/repeated_field.h"
#include "index/region.h"
#include "model/limits.h"
#include "trackdb/v1/track_service.pb.h"

namespace trackdb::service {

// `south_west` and `north_east` may be null (absent).
absl::StatusOr<index::RectRegion> BoundsRegion(const v1::LatLng* south_west,
                                               const v1::LatLng* north_east,
                                               absl::string_view prefix);
// `center` may be null (absent).
absl::StatusOr<index::CircleRegion> CircleRegionOf(const v1::LatLng* center,
                                                   double radius_m,
                                                   const model::Limits& limits,
                                                   absl::string_view prefix);
absl::StatusOr<index::PolygonRegion> PolygonRegionOf(
    const google::protobuf::RepeatedPtrField<v1::LatLng>& vertices,
    const model::Limits& limits, absl::string_view prefix);

}  // namespace trackdb::service

#endif  // TRACKDB_SERVICE_GRPC_SEARCH_AREA_H_
