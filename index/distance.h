#ifndef TRACKDB_INDEX_DISTANCE_H_
#define TRACKDB_INDEX_DISTANCE_H_

#include "index/latlng.h"

namespace trackdb::index {

// Redis GEO's Earth radius. Every distance trackdb reports, over gRPC or RESP,
// uses it so that both protocols agree with each other and with Redis.
inline constexpr double kEarthRadiusMeters = 6372797.560856;

// Great-circle distance in metres by the haversine formula, computed exactly
// as Redis's geohashGetDistance does (including its shortcut when the
// longitudes are equal), so GEODIST results match Redis to the last bit.
double HaversineMeters(const LatLng& a, const LatLng& b);

}  // namespace trackdb::index

#endif  // TRACKDB_INDEX_DISTANCE_H_
