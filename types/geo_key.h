#ifndef TRACKDB_TYPES_GEO_KEY_H_
#define TRACKDB_TYPES_GEO_KEY_H_

// A Redis GEO key's members and their sorted-set scores, for the GEO
// commands (geo_commands.cc, geo_search_command.cc) and the sorted-set
// commands on GEO keys (zset_commands.cc, zset_write_commands.cc,
// zset_algebra_commands.cc, through typed_zset.h).
//
// A Redis GEO key is a trackdb collection: each member is an entity and its
// position is the entity's latest point. Redis keeps a member as a sorted-set
// score, the 52-bit geohash of where it was added; trackdb keeps the exact
// position and computes that score when a command needs it
// (index::RedisGeoMemberScore), so every reply that shows a score or a
// decoded position is the one Redis would give.
//
// Members without a score: every door refuses positions outside Redis's
// range (model/limits.h), but a store written by an older trackdb may hold
// some with |lat| > 85.05112878. Such a
// member counts as present for ZCARD, ZREM, TYPE/EXISTS/DEL and GEOADD's
// NX/XX, and is invisible to every command that needs a score: GEOPOS,
// GEOHASH, GEODIST and ZSCORE/ZMSCORE answer nil for it, ZRANK nil, and
// ZRANGE/ZCOUNT and GEOSEARCH/GEORADIUS* skip it (so ZRANGE 0 -1 may list
// fewer members than ZCARD counts). FROMMEMBER / GEORADIUSBYMEMBER on it
// fail with Redis's "could not decode requested zset member".

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "storage/track_store.h"

namespace trackdb::types {

// A member and its Redis score.
struct ScoredMember {
  std::string member;
  uint64_t score = 0;
};

// Redis's sorted-set order: score, then member bytes (memcmp, then shorter
// first), which is std::string's order.
inline bool ZsetLess(const ScoredMember& a, const ScoredMember& b) {
  if (a.score != b.score) return a.score < b.score;
  return a.member < b.member;
}

// Every member of collection `name` that has a Redis score, in sorted-set
// order. O(N log N): a ScanLatest of the whole collection and a sort; trackdb
// keeps no score-ordered index.
absl::StatusOr<std::vector<ScoredMember>> LoadSortedMembers(
    storage::TrackStore& store, absl::string_view name);

// The Redis score of each member (nullopt: not a member, or a member without
// a score), in one MultiGet.
absl::StatusOr<std::vector<std::optional<uint64_t>>> MemberScores(
    storage::TrackStore& store, absl::string_view name,
    absl::Span<const std::string> members);

}  // namespace trackdb::types

#endif  // TRACKDB_TYPES_GEO_KEY_H_
