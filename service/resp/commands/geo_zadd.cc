#include "service/resp/commands/geo_zadd.h"

#include <cmath>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_format.h"
#include "index/geohash.h"
#include "index/redis_geo_search.h"
#include "model/clock.h"
#include "service/resp/commands/geo_args.h"
#include "storage/track_store.h"

namespace trackdb::resp {
namespace {

constexpr double kScoreEnd = 4503599627370496.0;  // 2^52

bool IsPositionScore(double score) {
  return score >= 0 && score < kScoreEnd && std::floor(score) == score;
}

// The distinct members of the call, in order of first appearance, each
// with the argv indexes of its scores.
struct MemberScores {
  std::vector<const std::string*> members;
  std::vector<std::vector<size_t>> pairs;  // per member: indexes into scores
};

MemberScores GroupByMember(const CommandContext& ctx, const ZAddRequest& req) {
  MemberScores grouped;
  absl::flat_hash_map<absl::string_view, size_t> slot_of;
  for (size_t j = 0; j < req.scores.size(); ++j) {
    const std::string& member = ctx.argv[req.scoreidx + 2 * j + 1];
    auto [it, inserted] = slot_of.try_emplace(member, grouped.members.size());
    if (inserted) {
      grouped.members.push_back(&member);
      grouped.pairs.emplace_back();
    }
    grouped.pairs[it->second].push_back(j);
  }
  return grouped;
}

// What the call did, replayed per member as zsetAdd would.
struct Tally {
  int64_t added = 0, updated = 0, processed = 0;
  double last_score = 0;  // INCR's reply
  std::string error;      // a score that is no position, or a NaN
  bool wrote = false;
};

// zsetAdd over one member's scores, from its stored position; the position
// to write, or nullopt when its score ends where it began.
absl::StatusOr<std::optional<index::LatLng>> DecideMember(
    const CommandContext& ctx, const ZAddRequest& req,
    const std::vector<size_t>& pairs, const std::optional<index::LatLng>& prior,
    Tally* tally) {
  std::optional<double> current;
  if (prior) {
    if (std::optional<uint64_t> score = index::RedisGeoMemberScore(*prior)) {
      current = static_cast<double>(*score);
    }
  }
  const std::optional<double> before = current;
  for (size_t j : pairs) {
    double score = 0;
    const ZAddOutcome outcome = ZAddDecide(req, current, req.scores[j], &score);
    if (outcome == ZAddOutcome::kNan) {
      tally->error = "resulting score is not a number (NaN)";
      return absl::AbortedError(tally->error);
    }
    if (outcome == ZAddOutcome::kNop) continue;
    ++tally->processed;
    tally->last_score = score;
    if (outcome == ZAddOutcome::kSame) continue;
    if (!IsPositionScore(score)) {
      tally->error = absl::StrFormat(
          "%s would set score %.17g on a GEO key: its scores are its "
          "members' positions, integer geohashes from 0 to 2^52-1",
          absl::AsciiStrToUpper(ctx.argv[0]), score);
      return absl::AbortedError(tally->error);
    }
    outcome == ZAddOutcome::kAdded ? ++tally->added : ++tally->updated;
    current = score;
  }
  if (current == before) return std::nullopt;
  return index::RedisGeoScoreToLatLng(static_cast<uint64_t>(*current));
}

void ReplyTally(CommandContext& ctx, const ZAddRequest& req,
                const Tally& tally) {
  if (!req.incr) {
    ctx.reply.Integer(req.ch ? tally.added + tally.updated : tally.added);
  } else if (tally.processed > 0) {
    ctx.reply.Double(tally.last_score);
  } else {
    ctx.reply.Null();
  }
}

}  // namespace

bool ZAddToGeoKey(CommandContext& ctx, const std::string& name,
                  const ZAddRequest& req) {
  if (!ValidGeoKeyOrReply(ctx, ctx.argv[1])) return false;
  const MemberScores grouped = GroupByMember(ctx, req);
  for (const std::string* member : grouped.members) {
    if (!ValidGeoMemberOrReply(ctx, *member)) return false;
  }
  std::vector<model::TrackPoint> points(grouped.members.size());
  const int64_t now = NowMs();
  for (size_t i = 0; i < points.size(); ++i) {
    points[i].entity = *grouped.members[i];
    points[i].loc_time_ms = now;  // placed by `position`
  }
  Tally tally;
  storage::AddPointsOptions options;
  options.replace_latest = true;  // a stored fix from a clock ahead moves too
  options.position = [&](size_t entity,
                         const std::optional<index::LatLng>& prior) {
    return DecideMember(ctx, req, grouped.pairs[entity], prior, &tally);
  };
  absl::StatusOr<storage::AddPointsResult> result =
      ctx.store().AddPoints(name, points, options);
  if (!tally.error.empty()) {
    ctx.reply.Error(tally.error);
    return false;
  }
  if (!ctx.Check(result.status())) return false;
  for (const storage::EntityOutcome& e : result->entities) {
    tally.wrote |= e.written;
  }
  ReplyTally(ctx, req, tally);
  return tally.wrote;
}

}  // namespace trackdb::resp
