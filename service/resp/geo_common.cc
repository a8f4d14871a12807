#include "service/resp/geo_common.h"

#include <algorithm>
#include <cstdio>

#include "index/geohash.h"
#include "index/redis_geo_search.h"
#include "service/clock.h"
#include "service/resp/common.h"
#include "service/resp/redis_number.h"

namespace trackdb::resp {

std::optional<bool> GeoKeyExists(CommandContext& ctx, const std::string& name) {
  absl::StatusOr<KeyType> type = TypeOf(ctx.store(), name, NowMs());
  if (!ctx.Check(type.status())) return std::nullopt;
  if (*type == KeyType::kString) {
    ctx.reply.Error(kWrongTypeError);
    return std::nullopt;
  }
  return *type == KeyType::kGeo;
}

absl::StatusOr<std::vector<ScoredMember>> LoadSortedMembers(
    storage::TrackStore& store, absl::string_view name) {
  std::vector<ScoredMember> members;
  absl::Status s = store.ScanLatest(name, [&](const storage::TrackPoint& p) {
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

absl::StatusOr<bool> DeleteAnyKey(storage::TrackStore& store,
                                  absl::string_view name) {
  bool removed = false;
  const std::string names[] = {std::string(name)};
  absl::Status s = store.UpdateStrings(
      names, NowMs(), [&](std::vector<std::optional<storage::StringValue>>* v) {
        if ((*v)[0].has_value()) {
          removed = true;
          (*v)[0].reset();
        }
        return absl::OkStatus();
      });
  if (!s.ok()) return s;
  absl::StatusOr<int64_t> entities = store.DeleteCollection(name);
  if (!entities.ok()) return entities.status();
  return removed || *entities > 0;
}

void ReplyNotFloat(CommandContext& ctx) { ctx.reply.Error(kNotFloatError); }

bool ParseLonLatOrReply(CommandContext& ctx, const std::string& lon,
                        const std::string& lat, index::LatLng* out) {
  double x = 0, y = 0;
  if (!ParseRedisDouble(lon, &x) || !ParseRedisDouble(lat, &y)) {
    ReplyNotFloat(ctx);
    return false;
  }
  if (x < index::kRedisLonMin || x > index::kRedisLonMax ||
      y < index::kRedisLatMin || y > index::kRedisLatMax) {
    // Redis formats this one with "%f" and its own "-ERR " prefix.
    char buf[1024];
    std::snprintf(buf, sizeof(buf),
                  "-ERR invalid longitude,latitude pair %f,%f", x, y);
    ctx.reply.Error(buf);
    return false;
  }
  *out = index::LatLng{y, x};
  return true;
}

std::optional<std::vector<std::optional<uint64_t>>> ScoresOfArgMembers(
    CommandContext& ctx) {
  const std::string name = ctx.Name(ctx.argv[1]);
  std::optional<bool> exists = GeoKeyExists(ctx, name);
  if (!exists) return std::nullopt;
  const std::vector<std::string> members(ctx.argv.begin() + 2, ctx.argv.end());
  if (!*exists) {
    return std::vector<std::optional<uint64_t>>(members.size());
  }
  auto scores = MemberScores(ctx.store(), name, members);
  if (!ctx.Check(scores.status())) return std::nullopt;
  return *std::move(scores);
}

}  // namespace trackdb::resp
