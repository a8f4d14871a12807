// GEO commands on a key: GEOADD, GEOPOS, GEODIST, GEOHASH. The searches are
// in geo_search_command.cc and the sorted-set commands in zset_commands.cc;
// geo_key.h says how a GEO key maps onto a trackdb collection.
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "index/geohash.h"
#include "index/redis_geo_format.h"
#include "index/redis_geo_search.h"
#include "service/clock.h"
#include "service/resp/command.h"
#include "service/resp/geo_args.h"
#include "service/resp/geo_key.h"
#include "service/resp/key_type.h"
#include "service/resp/option_words.h"
#include "service/resp/reply_errors.h"

namespace trackdb::resp {
namespace {

struct GeoAddElement {
  index::LatLng position;
  uint64_t score;
  const std::string* member;
};

// GEOADD's arguments after the key.
struct GeoAddRequest {
  bool nx = false, xx = false, ch = false;
  std::vector<GeoAddElement> elements;
};

// The options, then every lon lat member triple, in Redis's order. False
// once it has replied an error.
bool ParseGeoAddOrReply(CommandContext& ctx, GeoAddRequest* req) {
  const std::vector<std::string>& argv = ctx.argv;
  size_t first = 2;
  for (; first < argv.size(); ++first) {
    if (EqualsIgnoreCase(argv[first], "nx")) {
      req->nx = true;
    } else if (EqualsIgnoreCase(argv[first], "xx")) {
      req->xx = true;
    } else if (EqualsIgnoreCase(argv[first], "ch")) {
      req->ch = true;
    } else {
      break;
    }
  }
  const size_t rest = argv.size() - first;
  // Redis's GEOADD refuses a partial triple or NX with XX; ZADD, which it
  // calls, refuses zero elements. All three are "syntax error".
  if (rest % 3 != 0 || (req->nx && req->xx) || rest == 0) {
    ctx.reply.Error(kSyntaxError);
    return false;
  }
  req->elements.reserve(rest / 3);
  for (size_t i = first; i < argv.size(); i += 3) {
    index::LatLng p;
    if (!ParseLonLatOrReply(ctx, argv[i], argv[i + 1], &p)) return false;
    std::optional<uint64_t> score = index::RedisGeoMemberScore(p);
    if (!score) {  // Not reached: ParseLonLatOrReply checked the ranges.
      ctx.reply.Error("invalid longitude,latitude pair");
      return false;
    }
    req->elements.push_back({p, *score, &argv[i + 2]});
  }
  return true;
}

// trackdb's limits on a GEO key's name and its members' names.
bool CheckGeoAddSizesOrReply(CommandContext& ctx, const GeoAddRequest& req) {
  if (!ValidGeoKeyOrReply(ctx, ctx.argv[1])) return false;
  for (const GeoAddElement& e : req.elements) {
    if (!ValidGeoMemberOrReply(ctx, *e.member)) return false;
  }
  return true;
}

// GEOADD key [NX|XX] [CH] lon lat member [lon lat member ...]
//
// Redis runs GEOADD as ZADD with each member's geohash as its score; the
// replies below count as ZADD counts: a member is "added" if it was absent
// and "changed" if its 52-bit score changed. trackdb writes the positions
// through TrackStore::AddPoints in one batch: a history point per member at
// the server's time (NowMs), the member's latest point and its index entry.
//
// A member repeated in one call: ZADD applies the occurrences in order, so
// the last one wins (with NX the first, as the later ones find it present).
// trackdb writes only that winning position and counts every occurrence as
// ZADD does.
//
// A member whose stored latest point is newer than now (written over gRPC
// with a future time) does not move: the new point is history only, and
// the reply counts it as unchanged.
void GeoAdd(CommandContext& ctx) {
  const std::vector<std::string>& argv = ctx.argv;
  GeoAddRequest req;
  if (!ParseGeoAddOrReply(ctx, &req)) return;
  const bool nx = req.nx, xx = req.xx, ch = req.ch;
  const std::vector<GeoAddElement>& elements = req.elements;

  const std::string name = ctx.Name(argv[1]);
  std::optional<bool> exists = GeoKeyExists(ctx, name);
  if (!exists) return;
  if (!CheckGeoAddSizesOrReply(ctx, req)) return;

  // One point per distinct member: its winning occurrence.
  absl::flat_hash_map<absl::string_view, size_t> slot_of;
  std::vector<size_t> winner;                 // per slot, into elements
  std::vector<std::vector<uint64_t>> scores;  // per slot, every occurrence
  for (size_t i = 0; i < elements.size(); ++i) {
    auto [it, inserted] =
        slot_of.try_emplace(*elements[i].member, winner.size());
    if (inserted) {
      winner.push_back(i);
      scores.emplace_back();
    } else if (!nx) {
      winner[it->second] = i;
    }
    scores[it->second].push_back(elements[i].score);
  }
  const int64_t now = NowMs();
  std::vector<model::TrackPoint> points;
  points.reserve(winner.size());
  for (size_t i : winner) {
    model::TrackPoint p;
    p.entity = *elements[i].member;
    p.loc_time_ms = now;
    p.lat = elements[i].position.lat;
    p.lon = elements[i].position.lon;
    points.push_back(std::move(p));
  }
  storage::AddPointsOptions options;
  if (nx) options.only = storage::AddPointsOptions::Only::kNewEntities;
  if (xx) options.only = storage::AddPointsOptions::Only::kExistingEntities;
  absl::StatusOr<storage::AddPointsResult> result =
      ctx.store().AddPoints(name, points, options);
  if (!ctx.Check(result.status())) return;

  // Replay ZADD's counting over every occurrence, from the prior state the
  // write saw.
  int64_t added = 0, changed = 0;
  for (size_t slot = 0; slot < result->entities.size(); ++slot) {
    const storage::EntityOutcome& outcome = result->entities[slot];
    if (!outcome.latest_moved) continue;  // skipped, or older than stored
    bool present = outcome.prior.has_value();
    std::optional<uint64_t> current;
    if (present) current = index::RedisGeoMemberScore(*outcome.prior);
    for (uint64_t score : scores[slot]) {
      if (!present) {
        ++added;
        present = true;
        current = score;
      } else if (!nx && current != score) {
        ++changed;
        current = score;
      }
    }
  }
  ctx.reply.Integer(ch ? added + changed : added);
}

// GEOPOS key member [member ...]
void GeoPos(CommandContext& ctx) {
  const std::optional<std::vector<std::optional<uint64_t>>> scores =
      ScoresOfArgMembers(ctx);
  if (!scores) return;
  ctx.reply.Array(scores->size());
  for (const std::optional<uint64_t>& score : *scores) {
    if (!score) {
      ctx.reply.NullArray();
      continue;
    }
    const index::LatLng p = index::RedisGeoScoreToLatLng(*score);
    ctx.reply.Array(2);
    ctx.reply.DoubleText(index::RedisFormatCoordinate(p.lon));
    ctx.reply.DoubleText(index::RedisFormatCoordinate(p.lat));
  }
}

// GEODIST key member1 member2 [M|KM|FT|MI]
void GeoDist(CommandContext& ctx) {
  double to_meters = 1;
  if (ctx.argv.size() == 5) {
    std::optional<double> unit = index::RedisUnitToMeters(ctx.argv[4]);
    if (!unit) return ctx.reply.Error(index::kRedisUnsupportedUnitError);
    to_meters = *unit;
  } else if (ctx.argv.size() > 5) {
    return ctx.reply.Error(kSyntaxError);
  }
  const std::string name = ctx.Name(ctx.argv[1]);
  std::optional<bool> exists = GeoKeyExists(ctx, name);
  if (!exists) return;
  if (!*exists) return ctx.reply.Null();
  auto scores = MemberScores(ctx.store(), name, {ctx.argv[2], ctx.argv[3]});
  if (!ctx.Check(scores.status())) return;
  if (!(*scores)[0] || !(*scores)[1]) return ctx.reply.Null();
  ctx.reply.Bulk(index::RedisFormatDistance(
      index::RedisGeoDistMeters(*(*scores)[0], *(*scores)[1]), to_meters));
}

// GEOHASH key member [member ...]
void GeoHash(CommandContext& ctx) {
  const std::optional<std::vector<std::optional<uint64_t>>> scores =
      ScoresOfArgMembers(ctx);
  if (!scores) return;
  ctx.reply.Array(scores->size());
  for (const std::optional<uint64_t>& score : *scores) {
    if (!score) {
      ctx.reply.Null();
    } else {
      ctx.reply.Bulk(index::RedisGeohashString(*score));
    }
  }
}

}  // namespace

TRACKDB_RESP_COMMAND_FAMILY(geo, table) {
  table->Add("geoadd", -5, GeoAdd, {"write", "denyoom"});
  table->Add("geopos", -2, GeoPos, {"readonly"});
  table->Add("geodist", -4, GeoDist, {"readonly"});
  table->Add("geohash", -2, GeoHash, {"readonly"});
}

}  // namespace trackdb::resp
