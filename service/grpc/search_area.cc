#include "service/grpc/search_area.h"

#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "model/validate.h"

namespace trackdb::service {

absl::StatusOr<index::RectRegion> BoundsRegion(const v1::LatLng* south_west,
                                               const v1::LatLng* north_east,
                                               absl::string_view prefix) {
  if (south_west == nullptr || north_east == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        prefix, "south_west and ", prefix, "north_east are required"));
  }
  auto rect = index::RectRegion::Create(
      south_west->latitude(), south_west->longitude(), north_east->latitude(),
      north_east->longitude());
  if (!rect.ok() && !prefix.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(prefix, rect.status().message()));
  }
  return rect;
}

absl::StatusOr<index::CircleRegion> CircleRegionOf(const v1::LatLng* center,
                                                   double radius_m,
                                                   const model::Limits& limits,
                                                   absl::string_view prefix) {
  if (center == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(prefix, "center is required"));
  }
  if (absl::Status s = model::ValidateRadius(
          radius_m, absl::StrCat(prefix, "radius_m"), limits);
      !s.ok()) {
    return s;
  }
  const index::LatLng c{center->latitude(), center->longitude()};
  if (absl::Status s =
          model::ValidatePosition(c.lat, c.lon, absl::StrCat(prefix, "center"));
      !s.ok()) {
    return s;
  }
  auto circle = index::CircleRegion::Create(c, radius_m);
  // The centre passed above, so the radius is what the circle refused
  // (infinity, when no max_radius_m bounds it).
  if (!circle.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(prefix, "radius_m: ", circle.status().message()));
  }
  return circle;
}

absl::StatusOr<index::PolygonRegion> PolygonRegionOf(
    const google::protobuf::RepeatedPtrField<v1::LatLng>& vertices,
    const model::Limits& limits, absl::string_view prefix) {
  const std::string field = absl::StrCat(prefix, "vertices");
  if (absl::Status s =
          model::ValidatePolygonSize(vertices.size(), field, limits);
      !s.ok()) {
    return s;
  }
  std::vector<index::LatLng> points;
  for (const v1::LatLng& v : vertices) {
    points.push_back({v.latitude(), v.longitude()});
  }
  auto polygon = index::PolygonRegion::Create(std::move(points));
  if (!polygon.ok()) {
    const absl::string_view message = polygon.status().message();
    return absl::InvalidArgumentError(absl::StartsWith(message, "vertices")
                                          ? absl::StrCat(prefix, message)
                                          : absl::StrCat(field, ": ", message));
  }
  return polygon;
}

}  // namespace trackdb::service
