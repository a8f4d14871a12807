#ifndef TRACKDB_SERVICE_RESP_COMMANDS_GEO_SOURCE_H_
#define TRACKDB_SERVICE_RESP_COMMANDS_GEO_SOURCE_H_

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
#include "service/resp/dispatch/command.h"
#include "service/resp/commands/geo_key.h"
#include "service/resp/commands/typed_zset.h"

namespace trackdb::resp {

// The geohash a sorted-set score stands for; nullopt outside [0, 2^52).
std::optional<uint64_t> GeohashOfZsetScore(double score);

// The Redis score of each member of `name` (a `kind` key; kNone: all
// nullopt), as geo_key.h's MemberScores.
absl::StatusOr<std::vector<std::optional<uint64_t>>> GeoSourceScores(
    storage::TrackStore& store, const std::string& name, ZsetKind kind,
    absl::Span<const std::string> members);

// The members of plain sorted set `name` whose scores lie in one of
// `areas`' scan ranges, at their scores as stored (what Redis's STORE
// copies), in scan order: by range, then in sorted-set order. The ranges
// are disjoint, so no member comes twice.
absl::StatusOr<std::vector<ZEntry>> PlainZsetGeoCandidates(
    storage::TrackStore& store, const std::string& name,
    const index::RedisGeoAreas& areas);

// GEOPOS's and GEOHASH's lookup: the scores of argv[2..] in argv[1] (all
// nullopt when the key does not exist). nullopt when it has already
// replied with an error (WRONGTYPE, storage).
std::optional<std::vector<std::optional<uint64_t>>> ScoresOfArgMembers(
    CommandContext& ctx);

}  // namespace trackdb::resp

#endif  // TRACKDB_SERVICE_RESP_COMMANDS_GEO_SOURCE_H_
