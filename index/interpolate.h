#ifndef TRACKDB_INDEX_INTERPOLATE_H_
#define TRACKDB_INDEX_INTERPOLATE_H_

// Positions between two fixes: along the great circle from `a` to `b`, the
// path of constant speed and no turn between them (a straight line in
// lon/lat would bend across the antimeridian and near the poles).

#include <vector>

#include "index/latlng.h"

namespace trackdb::index {

// The point a `fraction` (in [0, 1]) of the way from `a` to `b` along the
// shorter great circle: `a` at 0, `b` at 1, at fraction x the distance from
// `a` is x times the whole. Equal or antipodal `a` and `b` (no unique great
// circle) give `a` below one half and `b` from it.
LatLng InterpolateGreatCircle(const LatLng& a, const LatLng& b,
                              double fraction);

// The point `meters` from `from` along the great circle that leaves it at
// `bearing_deg` (clockwise from north), on Redis's sphere: how test
// generators move entities. Latitude within [-90, 90], longitude within
// [-180, 180].
LatLng Destination(const LatLng& from, double meters, double bearing_deg);

// The mean of `points` on the sphere: the direction of their unit vectors'
// sum (as Valkey's polygon centre is computed), so points either side of
// the antimeridian average near it, not near longitude 0. Empty: 0/0.
LatLng SphericalMean(const std::vector<LatLng>& points);

}  // namespace trackdb::index

#endif  // TRACKDB_INDEX_INTERPOLATE_H_
