#include "analysis/simplify.h"

#include <utility>

#include "index/distance.h"
#include "s2/s1angle.h"
#include "s2/s2edge_distances.h"
#include "s2/s2latlng.h"

namespace trackdb::analysis {
namespace {

S2Point ToPoint(const index::LatLng& p) {
  return S2LatLng::FromDegrees(p.lat, p.lon).ToPoint();
}

}  // namespace

double DistanceToSegmentMeters(const index::LatLng& p, const index::LatLng& a,
                               const index::LatLng& b) {
  const S2Point pa = ToPoint(a), pb = ToPoint(b), pp = ToPoint(p);
  const S1Angle angle =
      pa == pb ? S1Angle(pp, pa) : S2::GetDistance(pp, pa, pb);
  return angle.radians() * index::kEarthRadiusMeters;
}

std::vector<size_t> SimplifyDouglasPeucker(
    const std::vector<index::LatLng>& points, double tolerance_m) {
  const size_t n = points.size();
  std::vector<bool> keep(n, tolerance_m <= 0);
  if (n > 0) keep[0] = keep[n - 1] = true;
  // Spans still to split, as an explicit stack: a track of a million points
  // must not recurse a million deep.
  std::vector<std::pair<size_t, size_t>> spans;
  if (n > 2 && tolerance_m > 0) spans.push_back({0, n - 1});
  while (!spans.empty()) {
    const auto [first, last] = spans.back();
    spans.pop_back();
    double farthest = -1;
    size_t at = first;
    for (size_t i = first + 1; i < last; ++i) {
      const double d =
          DistanceToSegmentMeters(points[i], points[first], points[last]);
      if (d > farthest) {
        farthest = d;
        at = i;
      }
    }
    if (farthest <= tolerance_m) continue;
    keep[at] = true;
    if (at - first > 1) spans.push_back({first, at});
    if (last - at > 1) spans.push_back({at, last});
  }
  std::vector<size_t> kept;
  for (size_t i = 0; i < n; ++i) {
    if (keep[i]) kept.push_back(i);
  }
  return kept;
}

}  // namespace trackdb::analysis
