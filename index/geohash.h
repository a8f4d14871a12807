#ifndef TRACKDB_INDEX_GEOHASH_H_
#define TRACKDB_INDEX_GEOHASH_H_

// Redis-compatible geohash: the 52-bit integer Redis stores as a GEO member's
// sorted-set score, and what Redis derives from it.
//
// Encoding (identical to Redis 7's geohash.c):
//   - longitude in [-180, 180] and latitude in [-85.05112878, 85.05112878]
//     (the Web-Mercator limit) are each scaled to [0, 2^step) and truncated;
//   - the bits are interleaved, latitude in the even positions (bit 0, 2, ...)
//     and longitude in the odd ones, so bit 2*step-1 is longitude's top bit.
//   - step is 26 for scores: 52 bits, which a double holds exactly.
// Latitudes outside the Mercator limit have no Redis score; trackdb's own
// index (index/covering.h) uses S2 cells instead and holds them.

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "index/latlng.h"

namespace trackdb::index {

inline constexpr double kRedisLatMin = -85.05112878;
inline constexpr double kRedisLatMax = 85.05112878;
inline constexpr double kRedisLonMin = -180;
inline constexpr double kRedisLonMax = 180;
inline constexpr int kRedisGeoStep = 26;

// A geohash cell: `bits` holds 2*step interleaved bits.
struct GeohashBits {
  uint64_t bits = 0;
  int step = 0;
  bool operator==(const GeohashBits& o) const {
    return bits == o.bits && step == o.step;
  }
};

// The lat/lon bounds of a cell.
struct GeohashArea {
  double lat_min, lat_max, lon_min, lon_max;
};

// Encodes with Redis's ranges at `step` (1..32). nullopt where Redis's
// geohashEncode fails: outside the ranges above, or not finite.
std::optional<GeohashBits> GeohashEncode(const LatLng& p, int step);

// The Redis GEO score (step 26) of a position, or nullopt outside Redis's
// range.
std::optional<uint64_t> RedisGeoScore(const LatLng& p);

// The bounds of a cell, as Redis's geohashDecode computes them.
GeohashArea GeohashDecodeArea(const GeohashBits& hash);

// The centre of a cell, clamped to Redis's ranges: what GEOPOS returns for a
// member whose score this is.
LatLng GeohashDecodeCentre(const GeohashBits& hash);
LatLng RedisGeoScoreToLatLng(uint64_t score);

// The 11-character base32 string Redis's GEOHASH returns for a score. Redis
// re-encodes the decoded centre over latitude [-90, 90] (the standard geohash
// ranges) and pads the 55th..52nd bit gap with a final '0'.
std::string RedisGeohashString(uint64_t score);

// The eight neighbouring cells in Redis's order: north, east, west, south,
// north-east, south-east, north-west, south-west. Like Redis, moves wrap
// around in both axes (across the antimeridian, and from the top row to the
// bottom one).
enum GeohashDirection {
  kNorth = 0,
  kEast,
  kWest,
  kSouth,
  kNorthEast,
  kSouthEast,
  kNorthWest,
  kSouthWest,
};
std::array<GeohashBits, 8> GeohashNeighbors(const GeohashBits& hash);

}  // namespace trackdb::index

#endif  // TRACKDB_INDEX_GEOHASH_H_
