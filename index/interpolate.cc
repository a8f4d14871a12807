#include "index/interpolate.h"

#include <algorithm>
#include <cmath>

#include "index/distance.h"
#include "s2/s1angle.h"
#include "s2/s2edge_distances.h"
#include "s2/s2latlng.h"

namespace trackdb::index {

LatLng InterpolateGreatCircle(const LatLng& a, const LatLng& b,
                              double fraction) {
  fraction = std::clamp(fraction, 0.0, 1.0);
  const S2Point pa = S2LatLng::FromDegrees(a.lat, a.lon).ToPoint();
  const S2Point pb = S2LatLng::FromDegrees(b.lat, b.lon).ToPoint();
  // S2::Interpolate needs distinct ends, and nearly antipodal ones (within
  // 1e-9 rad, 6 mm) have no well-defined great circle between them.
  const double angle = pa.Angle(pb);
  if (angle == 0 || angle > M_PI - 1e-9 || fraction == 0 || fraction == 1) {
    return fraction < 0.5 ? a : b;
  }
  const S2LatLng p(S2::Interpolate(pa, pb, fraction));
  return LatLng{p.lat().degrees(), p.lng().degrees()};
}

LatLng Destination(const LatLng& from, double meters, double bearing_deg) {
  const double d = meters / kEarthRadiusMeters;
  const double b = bearing_deg * M_PI / 180;
  const double lat1 = from.lat * M_PI / 180, lon1 = from.lon * M_PI / 180;
  const double lat2 = std::asin(std::sin(lat1) * std::cos(d) +
                                std::cos(lat1) * std::sin(d) * std::cos(b));
  const double lon2 =
      lon1 + std::atan2(std::sin(b) * std::sin(d) * std::cos(lat1),
                        std::cos(d) - std::sin(lat1) * std::sin(lat2));
  double lon = lon2 * 180 / M_PI;
  while (lon > 180) lon -= 360;
  while (lon < -180) lon += 360;
  return LatLng{std::clamp(lat2 * 180 / M_PI, -90.0, 90.0), lon};
}

LatLng SphericalMean(const std::vector<LatLng>& points) {
  // Redis's deg_rad / rad_deg (geohash_helper.c).
  constexpr double kDegToRad = M_PI / 180.0;
  double x = 0, y = 0, z = 0;
  for (const LatLng& p : points) {
    const double lat = p.lat * kDegToRad, lon = p.lon * kDegToRad;
    x += std::cos(lat) * std::cos(lon);
    y += std::cos(lat) * std::sin(lon);
    z += std::sin(lat);
  }
  return LatLng{std::atan2(z, std::sqrt(x * x + y * y)) / kDegToRad,
                std::atan2(y, x) / kDegToRad};
}

}  // namespace trackdb::index
