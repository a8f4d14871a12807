#include "index/region.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "index/distance.h"
#include "index/planar.h"
#include "s2/s1angle.h"
#include "s2/s1chord_angle.h"
#include "s2/s1interval.h"
#include "s2/s2cap.h"
#include "s2/s2latlng.h"
#include "s2/s2latlng_rect.h"

namespace trackdb::index {
namespace {

// Bounds are widened by this much so that rounding in S2's point and cell
// arithmetic can never drop a point Contains() accepts. About 1 cm.
constexpr double kMarginRadians = 1.6e-9;

bool LonBetween(double lon, double west, double east) {
  if (west <= east) return lon >= west && lon <= east;
  return lon >= west || lon <= east;  // crosses the antimeridian
}

bool LonInRect(double lon, double west, double east) {
  if (LonBetween(lon, west, east)) return true;
  // -180 and 180 name the same meridian.
  if (lon == 180) return LonBetween(-180, west, east);
  if (lon == -180) return LonBetween(180, west, east);
  return false;
}

std::unique_ptr<S2Region> LatLngRectBound(double south, double west,
                                          double north, double east) {
  const double west_rad = S1Angle::Degrees(west).radians();
  const double east_rad = S1Angle::Degrees(east).radians();
  // A rect that wraps (west > east) spans all but the gap between them; if
  // that gap rounds away in radians (west 5e-324, east 0) S1 would read a
  // single meridian, so the full circle bounds it instead.
  const bool wraps_past_radians = west > east && west_rad <= east_rad;
  S1Interval lng = (west == -180 && east == 180) || wraps_past_radians
                       ? S1Interval::Full()
                       : S1Interval(west_rad, east_rad);
  // S1Interval takes -180 as 180 unless the other end is 180, so west 180
  // with east -180 (or both -180) comes out as [pi, -pi]: S1's empty
  // interval, and an invalid S2LatLngRect whose covering is empty. The rect
  // is the antimeridian itself (LonInRect), S1's point pi.
  if (lng.is_empty()) lng = S1Interval::FromPoint(M_PI);
  S2LatLngRect rect(R1Interval(S1Angle::Degrees(south).radians(),
                               S1Angle::Degrees(north).radians()),
                    lng);
  // By a distance on the sphere, not an angle of longitude: near a pole a
  // point's longitude after S2's xyz rounding moves by ~1e-16 / cos(lat)
  // radians, far more than the margin (a corner 4 cm from the pole was
  // missed), and ExpandedByDistance widens the longitudes to match.
  return std::make_unique<S2LatLngRect>(
      rect.ExpandedByDistance(S1Angle::Radians(kMarginRadians)).PolarClosure());
}

}  // namespace

absl::StatusOr<RectRegion> RectRegion::Create(double south, double west,
                                              double north, double east) {
  if (auto s = ValidateLatLng({south, west}, "south_west"); !s.ok()) return s;
  if (auto s = ValidateLatLng({north, east}, "north_east"); !s.ok()) return s;
  if (south > north) {
    return absl::InvalidArgumentError(
        absl::StrCat("south_west.latitude (", south,
                     ") must not exceed north_east.latitude (", north, ")"));
  }
  return RectRegion(south, west, north, east);
}

bool RectRegion::Contains(const LatLng& p) const {
  return p.lat >= south_ && p.lat <= north_ && LonInRect(p.lon, west_, east_);
}

std::unique_ptr<S2Region> RectRegion::SphericalBound() const {
  return LatLngRectBound(south_, west_, north_, east_);
}

absl::StatusOr<CircleRegion> CircleRegion::Create(const LatLng& centre,
                                                  double radius_m) {
  if (auto s = ValidateLatLng(centre, "centre"); !s.ok()) return s;
  if (!std::isfinite(radius_m) || radius_m < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "radius must be a finite number of metres >= 0, got ", radius_m));
  }
  return CircleRegion(centre, radius_m);
}

CircleRegion::CircleRegion(const LatLng& c, double r)
    : centre_(c), radius_m_(r) {
  // The bounds are for circles where the haversine is well conditioned
  // (not near antipodal), and keep a relative margin far above its
  // rounding error, so they decide only where the exact test agrees.
  constexpr double kRelativeMargin = 1e-9;
  bounded_ = r >= 1 && r <= 1e6;
  cos_centre_lat_ = std::cos(c.lat * M_PI / 180);
  inside_below_ = r / kEarthRadiusMeters * (1 - kRelativeMargin);
  outside_above_ = r / kEarthRadiusMeters * (1 + kRelativeMargin);
}

bool CircleRegion::Contains(const LatLng& p) const {
  // The exact test costs a sine, a cosine and an arcsine per point, the
  // bulk of a small search's CPU; two bounds on the distance decide most
  // points first. The distance is at least the latitude difference (the
  // meridian is the shortest way between two parallels) and at most the
  // arc along the centre's parallel to p's meridian plus the arc along that
  // meridian to p (any path is at least the great circle).
  if (bounded_) {
    constexpr double kRadiansPerDegree = M_PI / 180;
    const double dlat = std::abs(p.lat - centre_.lat) * kRadiansPerDegree;
    if (dlat > outside_above_) return false;
    double dlon = std::abs(p.lon - centre_.lon);
    if (dlon > 180) dlon = 360 - dlon;
    if (dlat + cos_centre_lat_ * dlon * kRadiansPerDegree <= inside_below_) {
      return true;
    }
  }
  return HaversineMeters(centre_, p) <= radius_m_;
}

std::unique_ptr<S2Region> CircleRegion::SphericalBound() const {
  const double angle = radius_m_ / kEarthRadiusMeters + kMarginRadians;
  if (angle >= M_PI) return std::make_unique<S2Cap>(S2Cap::Full());
  const S2Point centre =
      S2LatLng::FromDegrees(centre_.lat, centre_.lon).ToPoint();
  return std::make_unique<S2Cap>(centre, S1ChordAngle(S1Angle::Radians(angle)));
}

namespace {

bool SameVertex(const LatLng& a, const LatLng& b) {
  return a.lat == b.lat && a.lon == b.lon;
}

absl::Status ValidateVertices(const std::vector<LatLng>& vertices) {
  for (size_t i = 0; i < vertices.size(); ++i) {
    const std::string field = absl::StrCat("vertices[", i, "]");
    if (auto s = ValidateLatLng(vertices[i], field.c_str()); !s.ok()) return s;
  }
  return absl::OkStatus();
}

// Whether edges i and j > i of the ring (edge k runs from vertex k to the
// next) meet where they must not: edge i may share only its end points
// with edges i-1 and i+1, and nothing with the others.
bool EdgesMeet(const std::vector<LatLng>& vertices, size_t i, size_t j) {
  const size_t n = vertices.size();
  const LatLng& a = vertices[i];
  const LatLng& b = vertices[(i + 1) % n];
  const LatLng& c = vertices[j];
  const LatLng& d = vertices[(j + 1) % n];
  const bool adjacent = (j == i + 1) || (i == 0 && j == n - 1);
  if (!adjacent) return SegmentsIntersect(a, b, c, d);
  // Adjacent edges overlap only when they fold back on each other.
  const LatLng& shared = (j == i + 1) ? b : a;
  const LatLng& far_a = (j == i + 1) ? a : b;
  const LatLng& far_c = (j == i + 1) ? d : c;
  return Orientation(far_a, shared, far_c) == 0 &&
         ((far_c.lon - shared.lon) * (far_a.lon - shared.lon) +
              (far_c.lat - shared.lat) * (far_a.lat - shared.lat) >
          0);
}

// Whether the ring of at least 3 vertices bounds a simple polygon: no
// vertex repeats the one before it and no two edges meet but at a shared
// end.
absl::Status CheckSimpleRing(const std::vector<LatLng>& vertices) {
  const size_t n = vertices.size();
  for (size_t i = 0; i < n; ++i) {
    if (SameVertex(vertices[i], vertices[(i + 1) % n])) {
      return absl::InvalidArgumentError(
          absl::StrCat("vertices[", i, "] repeats the vertex before it"));
    }
    for (size_t j = i + 1; j < n; ++j) {
      if (EdgesMeet(vertices, i, j)) {
        return absl::InvalidArgumentError(
            absl::StrCat("polygon is self-intersecting: edge ", i,
                         " (vertices[", i, "]-[", (i + 1) % n, "]) meets edge ",
                         j, " (vertices[", j, "]-[", (j + 1) % n, "])"));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<PolygonRegion> PolygonRegion::Create(
    std::vector<LatLng> vertices) {
  if (auto s = ValidateVertices(vertices); !s.ok()) return s;
  if (vertices.size() > 1 && SameVertex(vertices.front(), vertices.back())) {
    vertices.pop_back();  // a closed ring, GeoJSON-style
  }
  const size_t n = vertices.size();
  if (n < 3) {
    return absl::InvalidArgumentError(
        absl::StrCat("a polygon needs at least 3 distinct vertices, got ", n));
  }
  if (auto s = CheckSimpleRing(vertices); !s.ok()) return s;
  return PolygonRegion(std::move(vertices));
}

bool PolygonRegion::Contains(const LatLng& p) const {
  const size_t n = vertices_.size();
  bool inside = false;
  for (size_t i = 0, j = n - 1; i < n; j = i++) {
    const LatLng& a = vertices_[i];
    const LatLng& b = vertices_[j];
    if (OnSegment(p, a, b)) return true;
    // Even-odd rule with a ray towards +longitude.
    if ((a.lat > p.lat) != (b.lat > p.lat)) {
      const double lon_at =
          a.lon + (p.lat - a.lat) * (b.lon - a.lon) / (b.lat - a.lat);
      if (p.lon < lon_at) inside = !inside;
    }
  }
  return inside;
}

bool PolygonRegion::OnBoundary(const LatLng& p) const {
  const size_t n = vertices_.size();
  for (size_t i = 0, j = n - 1; i < n; j = i++) {
    if (OnSegment(p, vertices_[i], vertices_[j])) return true;
  }
  return false;
}

bool PolygonRegion::BoundaryMeets(const LatLng& a, const LatLng& b) const {
  const size_t n = vertices_.size();
  for (size_t i = 0, j = n - 1; i < n; j = i++) {
    if (SegmentsIntersect(a, b, vertices_[i], vertices_[j])) return true;
  }
  return false;
}

std::unique_ptr<S2Region> PolygonRegion::SphericalBound() const {
  // Straight lon/lat edges stay inside the vertices' bounding box.
  double s = 90, w = 180, n = -90, e = -180;
  for (const LatLng& v : vertices_) {
    s = std::min(s, v.lat);
    n = std::max(n, v.lat);
    w = std::min(w, v.lon);
    e = std::max(e, v.lon);
  }
  return LatLngRectBound(s, w, n, e);
}

}  // namespace trackdb::index
