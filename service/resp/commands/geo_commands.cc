// GEO commands on a key: GEOADD, GEOPOS, GEODIST, GEOHASH. The searches are
// in geo_search_command.cc and the sorted-set commands in zset_commands.cc;
// geo_key.h says how a GEO key maps onto a trackdb collection, and
// geo_source.h how these commands read a plain sorted set, as Redis's do.
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "index/geohash.h"
#include "index/redis_geo_format.h"
#include "index/redis_geo_search.h"
#include "model/clock.h"
#include "service/resp/commands/geo_args.h"
#include "service/resp/commands/typed_zset.h"
#include "service/resp/dispatch/command.h"
#include "service/resp/dispatch/option_words.h"
#include "service/resp/dispatch/reply_errors.h"
#include "types/geo_key.h"
#include "types/geo_source.h"
#include "types/key_type.h"

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
//
// Group commit: a pipelined run of plain GEOADDs (no NX, XX or CH) on one
// key is written as if it were one call holding every call's triples, in
// order, and each call gets the counts ZADD would give it run alone after
// the ones before it (GeoAddGroup).

// The members of one or more calls on one key: one point per distinct
// member, at its winning occurrence, and every occurrence's call and score.
struct MergedMembers {
  std::vector<model::TrackPoint> points;
  std::vector<std::vector<std::pair<size_t, uint64_t>>> occurrences;
};

MergedMembers MergeMembers(absl::Span<const GeoAddRequest* const> calls,
                           bool nx, int64_t now) {
  MergedMembers merged;
  absl::flat_hash_map<absl::string_view, size_t> slot_of;
  std::vector<const GeoAddElement*> winner;  // per slot
  for (size_t call = 0; call < calls.size(); ++call) {
    if (calls[call] == nullptr) continue;  // refused: writes nothing
    for (const GeoAddElement& e : calls[call]->elements) {
      auto [it, inserted] = slot_of.try_emplace(*e.member, winner.size());
      if (inserted) {
        winner.push_back(&e);
        merged.occurrences.emplace_back();
      } else if (!nx) {
        winner[it->second] = &e;
      }
      merged.occurrences[it->second].emplace_back(call, e.score);
    }
  }
  merged.points.reserve(winner.size());
  for (const GeoAddElement* e : winner) {
    model::TrackPoint p;
    p.entity = *e->member;
    p.loc_time_ms = now;
    p.lat = e->position.lat;
    p.lon = e->position.lon;
    merged.points.push_back(std::move(p));
  }
  return merged;
}

// Replays ZADD's counting over every occurrence, in order, from the prior
// state the write saw: per call, members added and changed.
struct CallCounts {
  int64_t added = 0, changed = 0;
};
std::vector<CallCounts> CountPerCall(const storage::AddPointsResult& result,
                                     const MergedMembers& merged, bool nx,
                                     size_t calls) {
  std::vector<CallCounts> counts(calls);
  for (size_t slot = 0; slot < result.entities.size(); ++slot) {
    const storage::EntityOutcome& outcome = result.entities[slot];
    if (!outcome.latest_moved) continue;  // skipped, or older than stored
    bool present = outcome.prior.has_value();
    std::optional<uint64_t> current;
    if (present) current = index::RedisGeoMemberScore(*outcome.prior);
    for (const auto& [call, score] : merged.occurrences[slot]) {
      if (!present) {
        ++counts[call].added;
        present = true;
        current = score;
      } else if (!nx && current != score) {
        ++counts[call].changed;
        current = score;
      }
    }
  }
  return counts;
}

// Redis's GEOADD on a plain sorted set: ZADD, its options kept, with each
// member's geohash as its score (geo_source.h).
void AddToPlainZset(CommandContext& ctx, const GeoAddRequest& req) {
  const size_t first_triple = ctx.argv.size() - 3 * req.elements.size();
  std::vector<std::string> argv(ctx.argv.begin(),
                                ctx.argv.begin() + first_triple);
  argv[0] = "zadd";
  for (const GeoAddElement& e : req.elements) {
    argv.push_back(absl::StrCat(e.score));
    argv.push_back(*e.member);
  }
  CommandContext zadd{ctx.server, ctx.client, argv, ctx.reply};
  ctx.server.commands().Find("zadd")->handler(zadd);
}

void GeoAdd(CommandContext& ctx) {
  GeoAddRequest req;
  if (!ParseGeoAddOrReply(ctx, &req)) return;
  const std::string name = ctx.Name(ctx.argv[1]);
  std::optional<types::ZsetKind> kind = ZsetKindOrReply(ctx, name);
  if (!kind) return;
  if (*kind == types::ZsetKind::kTyped) return AddToPlainZset(ctx, req);
  if (!CheckGeoAddSizesOrReply(ctx, req)) return;

  const GeoAddRequest* calls[] = {&req};
  const MergedMembers merged = MergeMembers(calls, req.nx, NowMs());
  storage::AddPointsOptions options;
  if (req.nx) options.only = storage::AddPointsOptions::Only::kNewEntities;
  if (req.xx) options.only = storage::AddPointsOptions::Only::kExistingEntities;
  absl::StatusOr<storage::AddPointsResult> result =
      ctx.store().AddPoints(name, merged.points, options);
  if (!ctx.Check(result.status())) return;
  const CallCounts counts = CountPerCall(*result, merged, req.nx, 1)[0];
  ctx.reply.Integer(req.ch ? counts.added + counts.changed : counts.added);
}

// A GEOADD that a group may hold: well formed, and without options (NX and
// XX decide per member from the state the calls before left, CH changes
// the count).
bool PlainGeoAdd(const std::vector<std::string>& argv) {
  if (argv.size() < 5 || (argv.size() - 2) % 3 != 0) return false;
  for (const char* option : {"nx", "xx", "ch"}) {
    if (EqualsIgnoreCase(argv[2], option)) return false;
  }
  return true;
}

bool GeoAddJoins(const std::vector<std::string>& first,
                 const std::vector<std::string>& next) {
  return PlainGeoAdd(next) && EqualsIgnoreCase(next[0], "geoadd") &&
         next[1] == first[1];
}

// A run of plain GEOADDs on one key: each call is parsed and checked as
// GeoAdd does, in its order (a refused call gets its error in its place
// and writes nothing); the others are written in ONE AddPoints.
void GeoAddGroup(ServerState& server, ClientState& client,
                 absl::Span<const std::vector<std::string>> argvs,
                 Reply& reply) {
  const std::string name =
      CommandContext{server, client, argvs[0], reply}.Name(argvs[0][1]);
  std::string type_error;  // the key's, said to every well-formed call
  std::optional<types::ZsetKind> kind;
  {
    Reply error(&type_error, reply.protocol());
    CommandContext ctx{server, client, argvs[0], error};
    kind = ZsetKindOrReply(ctx, name);
  }
  if (kind == types::ZsetKind::kTyped) {  // ZADDs, one after the other
    for (const std::vector<std::string>& argv : argvs) {
      CommandContext ctx{server, client, argv, reply};
      GeoAdd(ctx);
    }
    return;
  }
  std::vector<GeoAddRequest> requests(argvs.size());
  std::vector<const GeoAddRequest*> accepted(argvs.size(), nullptr);
  std::vector<std::string> errors(argvs.size());
  for (size_t i = 0; i < argvs.size(); ++i) {
    Reply error(&errors[i], reply.protocol());
    CommandContext ctx{server, client, argvs[i], error};
    if (!ParseGeoAddOrReply(ctx, &requests[i])) continue;
    if (!kind) {
      errors[i] = type_error;
      continue;
    }
    if (CheckGeoAddSizesOrReply(ctx, requests[i])) accepted[i] = &requests[i];
  }
  const MergedMembers merged = MergeMembers(accepted, false, NowMs());
  absl::StatusOr<storage::AddPointsResult> result =
      merged.points.empty() ? storage::AddPointsResult()
                            : server.store().AddPoints(name, merged.points, {});
  std::vector<CallCounts> counts;
  if (result.ok()) counts = CountPerCall(*result, merged, false, argvs.size());
  for (size_t i = 0; i < argvs.size(); ++i) {
    if (accepted[i] == nullptr) {
      reply.Encoded(errors[i]);
    } else if (!result.ok()) {
      CommandContext ctx{server, client, argvs[i], reply};
      ctx.Check(result.status());
    } else {
      reply.Integer(counts[i].added);
    }
  }
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
  std::optional<types::ZsetKind> kind = ZsetKindOrReply(ctx, name);
  if (!kind) return;
  if (*kind == types::ZsetKind::kNone) return ctx.reply.Null();
  auto scores = types::GeoSourceScores(ctx.store(), name, *kind,
                                       {ctx.argv[2], ctx.argv[3]}, NowMs());
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
  table->AddGroup("geoadd", GeoAddJoins, GeoAddGroup);
  table->Add("geopos", -2, GeoPos, {"readonly"});
  table->Add("geodist", -4, GeoDist, {"readonly"});
  table->Add("geohash", -2, GeoHash, {"readonly"});
}

}  // namespace trackdb::resp
