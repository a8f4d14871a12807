#include "index/distance.h"

#include <cmath>

namespace trackdb::index {
namespace {

double DegToRad(double deg) { return deg * (M_PI / 180.0); }

}  // namespace

double HaversineMeters(const LatLng& a, const LatLng& b) {
  const double v = std::sin((DegToRad(b.lon) - DegToRad(a.lon)) / 2);
  if (v == 0.0) {
    // Same meridian: the distance is the latitude difference alone.
    return kEarthRadiusMeters * std::fabs(DegToRad(b.lat) - DegToRad(a.lat));
  }
  const double lat1 = DegToRad(a.lat);
  const double lat2 = DegToRad(b.lat);
  const double u = std::sin((lat2 - lat1) / 2);
  const double h = u * u + std::cos(lat1) * std::cos(lat2) * v * v;
  return 2.0 * kEarthRadiusMeters * std::asin(std::sqrt(h));
}

}  // namespace trackdb::index
