#ifndef TRACKDB_ANALYSIS_SIMPLIFY_H_
#define TRACKDB_ANALYSIS_SIMPLIFY_H_

// Douglas-Peucker simplification of a track for drawing: the fewest points
// (by the algorithm's greedy rule) such that every dropped point lies
// within `tolerance_m` of the simplified line. Distances are to great-
// circle segments on Redis's sphere (index/distance.h's radius), so the
// tolerance means metres anywhere on Earth.

#include <cstddef>
#include <vector>

#include "index/latlng.h"

namespace trackdb::analysis {

// The indices of the points kept, ascending; the first and last are always
// kept. A tolerance <= 0 keeps every point.
std::vector<size_t> SimplifyDouglasPeucker(
    const std::vector<index::LatLng>& points, double tolerance_m);

// The distance in metres from `p` to the great-circle segment a-b.
double DistanceToSegmentMeters(const index::LatLng& p, const index::LatLng& a,
                               const index::LatLng& b);

}  // namespace trackdb::analysis

#endif  // TRACKDB_ANALYSIS_SIMPLIFY_H_
