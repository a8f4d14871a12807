#ifndef TRACKDB_INDEX_REGION_H_
#define TRACKDB_INDEX_REGION_H_

// Query regions. Contains() is the exact definition of each query: a search
// returns precisely the points for which it is true, and brute-force tests
// use it as the oracle. SphericalBound() is only for index coverings: an S2
// region that contains every point Contains() accepts (with a small margin
// for rounding), and nothing in the index relies on it being tight.

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "index/latlng.h"
#include "s2/s2region.h"

namespace trackdb::index {

class Region {
 public:
  virtual ~Region() = default;
  virtual bool Contains(const LatLng& p) const = 0;
  virtual std::unique_ptr<S2Region> SphericalBound() const = 0;
};

// A latitude/longitude rectangle, edges included. When west > east it
// crosses the antimeridian (e.g. west 170, east -170 is 20 degrees wide).
// Longitudes -180 and 180 are the same meridian and match each other.
class RectRegion final : public Region {
 public:
  static absl::StatusOr<RectRegion> Create(double south, double west,
                                           double north, double east);
  bool Contains(const LatLng& p) const override;
  std::unique_ptr<S2Region> SphericalBound() const override;
  double south() const { return south_; }
  double west() const { return west_; }
  double north() const { return north_; }
  double east() const { return east_; }

 private:
  RectRegion(double s, double w, double n, double e)
      : south_(s), west_(w), north_(n), east_(e) {}
  double south_, west_, north_, east_;
};

// A disc on the sphere: points whose haversine distance (index/distance.h,
// Redis's formula and radius) from the centre is <= radius_m.
class CircleRegion final : public Region {
 public:
  static absl::StatusOr<CircleRegion> Create(const LatLng& centre,
                                             double radius_m);
  bool Contains(const LatLng& p) const override;
  std::unique_ptr<S2Region> SphericalBound() const override;
  const LatLng& centre() const { return centre_; }
  double radius_m() const { return radius_m_; }

 private:
  CircleRegion(const LatLng& c, double r);
  LatLng centre_;
  double radius_m_;
  // Contains' bounds without trigonometry (region.cc), in radians; used
  // when `bounded_`.
  bool bounded_ = false;
  double cos_centre_lat_ = 0;
  double inside_below_ = 0;   // a bound on the distance this low: inside
  double outside_above_ = 0;  // a bound on the distance this high: outside
};

// A simple polygon whose edges are straight lines in longitude/latitude
// coordinates, as in GeoJSON (RFC 7946) and Tile38; boundary points are
// inside. A closing vertex equal to the first is optional. A polygon cannot
// cross the antimeridian: split it in two there.
class PolygonRegion final : public Region {
 public:
  // INVALID_ARGUMENT for fewer than 3 distinct vertices, a bad coordinate,
  // or edges that cross or touch other than at shared corners.
  static absl::StatusOr<PolygonRegion> Create(std::vector<LatLng> vertices);
  bool Contains(const LatLng& p) const override;
  std::unique_ptr<S2Region> SphericalBound() const override;
  // Whether p lies on an edge.
  bool OnBoundary(const LatLng& p) const;
  // Whether the segment a-b (straight in lon/lat) meets an edge.
  bool BoundaryMeets(const LatLng& a, const LatLng& b) const;
  // The vertices, without a closing repeat of the first.
  const std::vector<LatLng>& vertices() const { return vertices_; }

 private:
  explicit PolygonRegion(std::vector<LatLng> v) : vertices_(std::move(v)) {}
  std::vector<LatLng> vertices_;
};

}  // namespace trackdb::index

#endif  // TRACKDB_INDEX_REGION_H_
