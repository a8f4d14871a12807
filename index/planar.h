#ifndef TRACKDB_INDEX_PLANAR_H_
#define TRACKDB_INDEX_PLANAR_H_

// Straight lines in the longitude/latitude plane, as polygons' edges are
// (GeoJSON, Tile38) and as fences take the path between two fixes. Exact
// predicates on the given doubles: no tolerance, so a point on an edge is
// on it only when the arithmetic says so.

#include <algorithm>

#include "index/latlng.h"

namespace trackdb::index {

// Orientation of (a, b, c): > 0 a left turn, < 0 a right turn, 0 collinear.
// Inline, as OnSegment: PolygonRegion::Contains runs it for every edge of
// every candidate a polygon search examines.
inline double Orientation(const LatLng& a, const LatLng& b, const LatLng& c) {
  return (b.lon - a.lon) * (c.lat - a.lat) - (b.lat - a.lat) * (c.lon - a.lon);
}

// Whether p lies on the segment a-b, ends included.
inline bool OnSegment(const LatLng& p, const LatLng& a, const LatLng& b) {
  return Orientation(a, b, p) == 0 && p.lon >= std::min(a.lon, b.lon) &&
         p.lon <= std::max(a.lon, b.lon) && p.lat >= std::min(a.lat, b.lat) &&
         p.lat <= std::max(a.lat, b.lat);
}

// Whether the segments a-b and c-d share at least one point (touching at an
// end or overlapping along a line counts).
bool SegmentsIntersect(const LatLng& a, const LatLng& b, const LatLng& c,
                       const LatLng& d);

}  // namespace trackdb::index

#endif  // TRACKDB_INDEX_PLANAR_H_
