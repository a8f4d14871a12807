#ifndef TRACKDB_TYPES_GEO_SOURCE_H_
#define TRACKDB_TYPES_GEO_SOURCE_H_

// What the GEO commands read: a GEO key (a trackdb collection, geo_key.h)
// or, as Redis reads any sorted set, a plain sorted set (typed_zset.h) whose
// scores are taken as 52-bit geohashes (a ZADD of GEOHASH-style integer
// scores, or a GEORADIUS ... STORE result).
//
// A plain sorted set's score is read as Redis's decodeGeohash does
// ((uint64_t)score, so 1.9 is geohash 1) when it lies in [0, 2^52); a
// member whose score is outside it is treated as geo_key.h treats a member
// without a score: invisible to the GEO commands (Redis would decode it to
// a clamped position at the edge of the map).
//
// Cost: scores of named members are point reads, as on a GEO key; a search
// reads the score ranges Redis scans (up to nine, index/redis_geo_search.h),
// each a seek of the score order: O(log N + M) for M members in them, as
// Redis's.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "index/redis_geo_search.h"
#include "types/geo_key.h"
#include "types/zset.h"

namespace trackdb::types {

// The geohash a sorted-set score stands for; nullopt outside [0, 2^52).
std::optional<uint64_t> GeohashOfZsetScore(double score);

// The Redis score of each member of `name` (a `kind` key; kNone: all
// nullopt), as geo_key.h's MemberScores.
absl::StatusOr<std::vector<std::optional<uint64_t>>> GeoSourceScores(
    storage::TrackStore& store, const std::string& name, ZsetKind kind,
    absl::Span<const std::string> members, int64_t now_ms);

// The members of plain sorted set `name` whose scores lie in one of
// `areas`' scan ranges, at their scores as stored (what Redis's STORE
// copies), in scan order: by range, then in sorted-set order. The ranges
// are disjoint, so no member comes twice.
absl::StatusOr<std::vector<ZEntry>> PlainZsetGeoCandidates(
    storage::TrackStore& store, const std::string& name,
    const index::RedisGeoAreas& areas, int64_t now_ms);

}  // namespace trackdb::types

#endif  // TRACKDB_TYPES_GEO_SOURCE_H_
