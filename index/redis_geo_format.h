#ifndef TRACKDB_INDEX_REDIS_GEO_FORMAT_H_
#define TRACKDB_INDEX_REDIS_GEO_FORMAT_H_

// Units and the text of Redis 7.0's GEO replies, byte for byte. Pure
// functions; the RESP framing ($len\r\n...) is the caller's.
//
//   GEOSEARCH WITHDIST, GEODIST  bulk string RedisFormatDistance(m, unit)
//   GEOSEARCH WITHHASH           integer: the member's score
//                                (RedisGeoMemberScore,
//                                index/redis_geo_search.h)
//   GEOSEARCH WITHCOORD, GEOPOS  two bulk strings RedisFormatCoordinate(lon),
//                                RedisFormatCoordinate(lat) of the decoded
//                                position RedisGeoScoreToLatLng(score)
//   GEOHASH                      RedisGeohashString(score) (index/geohash.h)

#include <cstdint>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"

namespace trackdb::index {

// The error Redis replies for an unknown unit (after "-ERR ").
inline constexpr char kRedisUnsupportedUnitError[] =
    "unsupported unit provided. please use M, KM, FT, MI";

// Metres per unit for Redis's units m, km, ft (0.3048) and mi (1609.34),
// matched case-insensitively as Redis's strcasecmp does (which also stops at
// a NUL byte); nullopt for anything else.
std::optional<double> RedisUnitToMeters(absl::string_view unit);

// The reverse, as Redis computes it: meters / unit_to_meters.
double RedisMetersToUnit(double meters, double unit_to_meters);

// Distance text (addReplyDoubleDistance): the distance in the unit with four
// decimals, as Redis 7.0's fixedpoint_d2string rounds it (llrint of the
// value times 10^4), which is not always printf's "%.4f".
std::string RedisFormatDistance(double meters, double unit_to_meters);

// Coordinate text (addReplyHumanLongDouble, RESP2): the double widened to
// long double, printed "%.17Lf", trailing zeros and a trailing '.' removed,
// "-0" printed as "0". E.g. "13.36138933897018433", "180", "0.0001".
std::string RedisFormatCoordinate(double degrees);

// GEODIST's distance in metres between two members' scores: the haversine
// between their decoded positions, in Redis's argument order.
double RedisGeoDistMeters(uint64_t score1, uint64_t score2);

}  // namespace trackdb::index

#endif  // TRACKDB_INDEX_REDIS_GEO_FORMAT_H_
