#include "types/geo_key.h"

#include <algorithm>

#include "index/redis_geo_search.h"

namespace trackdb::types {

absl::StatusOr<std::vector<ScoredMember>> LoadSortedMembers(
    storage::TrackStore& store, absl::string_view name) {
  std::vector<ScoredMember> members;
  absl::Status s = store.ScanLatest(name, [&](const model::TrackPoint& p) {
    if (std::optional<uint64_t> score =
            index::RedisGeoMemberScore({p.lat, p.lon})) {
      members.push_back({p.entity, *score});
    }
    return true;
  });
  if (!s.ok()) return s;
  std::sort(members.begin(), members.end(), ZsetLess);
  return members;
}

absl::StatusOr<std::vector<std::optional<uint64_t>>> MemberScores(
    storage::TrackStore& store, absl::string_view name,
    absl::Span<const std::string> members) {
  auto latest = store.GetLatest(name, members);
  if (!latest.ok()) return latest.status();
  std::vector<std::optional<uint64_t>> scores(members.size());
  for (size_t i = 0; i < members.size(); ++i) {
    if ((*latest)[i]) {
      scores[i] =
          index::RedisGeoMemberScore({(*latest)[i]->lat, (*latest)[i]->lon});
    }
  }
  return scores;
}

}  // namespace trackdb::types
