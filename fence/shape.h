#ifndef TRACKDB_FENCE_SHAPE_H_
#define TRACKDB_FENCE_SHAPE_H_

// A fence's area (trackdb.v1.Fence's shape): what "inside" means for a fix,
// and whether the path between two fixes passes through the area (CROSS).
//
// The path between two fixes is taken as a straight line in longitude and
// latitude, the short way round (across the antimeridian when that is
// shorter), as a polygon's edges are. Every shape is closed: its boundary is
// inside, a hole's boundary included.

#include <memory>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "index/latlng.h"
#include "index/region.h"
#include "model/limits.h"
#include "s2/s2region.h"
#include "trackdb/v1/fence.pb.h"

namespace trackdb::fence {

class FenceShape {
 public:
  // INVALID_ARGUMENT naming the field ("circle.radius_m", "polygon.holes[1]
  // .vertices[2].latitude", ...) for a missing shape, a bad coordinate, a
  // radius <= 0 or beyond limits.max_radius_m, or a polygon or hole that is
  // too small, too large (limits.max_polygon_vertices in all) or
  // self-intersecting. A hole is not checked against the outer ring: the
  // part of a hole outside it cuts nothing. A roaming fence has no fixed
  // area (fence::Roam): INVALID_ARGUMENT too.
  static absl::StatusOr<FenceShape> FromProto(const v1::Fence& fence,
                                              const model::Limits& limits);

  bool Contains(const index::LatLng& p) const;
  // Whether the path from a to b has a point in the area, ends included.
  bool PathMeets(const index::LatLng& a, const index::LatLng& b) const;
  // Holds every point Contains() accepts: what a fence index covers.
  std::unique_ptr<S2Region> SphericalBound() const;

 private:
  struct Polygon {
    index::PolygonRegion outer;
    std::vector<index::PolygonRegion> holes;
  };
  using Area = std::variant<index::CircleRegion, index::RectRegion, Polygon>;
  explicit FenceShape(Area area) : area_(std::move(area)) {}

  // PathMeets for a path that does not cross the antimeridian.
  bool SegmentMeets(const index::LatLng& a, const index::LatLng& b) const;

  Area area_;
};

}  // namespace trackdb::fence

#endif  // TRACKDB_FENCE_SHAPE_H_
