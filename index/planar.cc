#include "index/planar.h"

namespace trackdb::index {
namespace {

int Sign(double v) { return (v > 0) - (v < 0); }

}  // namespace

bool SegmentsIntersect(const LatLng& a, const LatLng& b, const LatLng& c,
                       const LatLng& d) {
  const int d1 = Sign(Orientation(c, d, a)), d2 = Sign(Orientation(c, d, b));
  const int d3 = Sign(Orientation(a, b, c)), d4 = Sign(Orientation(a, b, d));
  if (d1 * d2 < 0 && d3 * d4 < 0) return true;
  return (d1 == 0 && OnSegment(a, c, d)) || (d2 == 0 && OnSegment(b, c, d)) ||
         (d3 == 0 && OnSegment(c, a, b)) || (d4 == 0 && OnSegment(d, a, b));
}

}  // namespace trackdb::index
