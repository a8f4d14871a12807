// GEOSEARCH, GEOSEARCHSTORE, GEORADIUS, GEORADIUSBYMEMBER and their _RO
// forms: one function, as in Redis (georadiusGeneric in src/geo.c), parsing
// the arguments in Redis's order so that the first error Redis would report
// is the one trackdb reports.
//
// Which members a search returns, in which order and with which numbers is
// decided by index::RedisGeoSearch (index/redis_geo_search.h) over candidates
// that storage finds with one ScanRegion: the circle of
// RedisGeoCandidateRadiusMeters around the centre holds every member Redis
// could accept. Members without a Redis score (|lat| > 85.05112878, written
// over gRPC) are never candidates.
//
// Storing (GEOSEARCHSTORE, GEORADIUS* STORE): the destination key is
// replaced, as Redis's setKey does whatever it held, by a GEO key whose
// members are the results at their source positions (each result's latest
// point is copied). The replacement is two storage batches (delete, then
// AddPoints), so a concurrent reader may see the destination empty between
// them. STOREDIST is refused: a trackdb GEO key holds positions, and a
// distance is not a position, so it cannot be stored as a GEO member's
// score; trackdb replies kStoreDistError after checking every argument as
// Redis does, before touching any key.
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "index/geohash.h"
#include "index/redis_geo_format.h"
#include "index/redis_geo_search.h"
#include "index/region.h"
#include "service/resp/command.h"
#include "service/resp/geo_args.h"
#include "service/resp/geo_key.h"
#include "service/resp/key_type.h"
#include "service/resp/option_words.h"
#include "service/resp/redis_number.h"
#include "service/resp/reply_errors.h"

namespace trackdb::resp {
namespace {

constexpr char kStoreDistError[] =
    "STOREDIST is not supported by trackdb: a GEO key holds positions, and a "
    "distance cannot be stored as a position (use STORE, or WITHDIST)";

// Beyond this candidate radius the circle covers (nearly) the whole sphere:
// read the collection instead of the index. Half the Earth's circumference
// is 20,015 km.
constexpr double kWholeSphereMeters = 2.0e7;

enum Flags {
  kRadiusCoords = 1 << 0,  // GEORADIUS: centre from lon lat
  kRadiusMember = 1 << 1,  // GEORADIUSBYMEMBER: centre from a member
  kNoStore = 1 << 2,       // the _RO forms: no STORE / STOREDIST
  kGeoSearch = 1 << 3,     // GEOSEARCH's argument grammar
  kGeoSearchStore = 1 << 4,
};

// longLatFromMember: the member's decoded position (its cell centre), which
// is where Redis measures from.
bool MemberCentreOrReply(CommandContext& ctx, const std::string& name,
                         const std::string& member, index::LatLng* centre) {
  auto scores = MemberScores(ctx.store(), name, {member});
  if (!ctx.Check(scores.status())) return false;
  if (!(*scores)[0]) {
    ctx.reply.Error("could not decode requested zset member");
    return false;
  }
  *centre = index::RedisGeoScoreToLatLng(*(*scores)[0]);
  return true;
}

struct Candidates {
  std::vector<index::RedisGeoCandidate> list;
  absl::flat_hash_map<std::string, storage::TrackPoint> points;  // for STORE
};

absl::Status FindCandidates(storage::TrackStore& store, const std::string& name,
                            const index::RedisGeoShape& shape, bool keep_points,
                            Candidates* out) {
  auto visit = [&](const storage::TrackPoint& p) {
    std::optional<uint64_t> score = index::RedisGeoMemberScore({p.lat, p.lon});
    if (!score) return true;  // no Redis score: Redis could not hold it
    out->list.push_back({p.entity, *score});
    if (keep_points) out->points.emplace(p.entity, p);
    return true;
  };
  const double radius = index::RedisGeoCandidateRadiusMeters(shape);
  if (!(radius < kWholeSphereMeters)) return store.ScanLatest(name, visit);
  absl::StatusOr<index::CircleRegion> circle =
      index::CircleRegion::Create(shape.centre, radius);
  if (!circle.ok()) return circle.status();
  // A search needs only ids and positions; STORE needs whole points.
  storage::ScanOptions options;
  options.positions_only = !keep_points;
  return store.ScanRegion(name, *circle, visit, options);
}

absl::Status ReplaceWithPoints(storage::TrackStore& store,
                               const std::string& name,
                               const std::vector<storage::TrackPoint>& points) {
  if (absl::StatusOr<bool> d = DeleteAnyKey(store, name); !d.ok()) {
    return d.status();
  }
  return store.AddPoints(name, points);
}

void GeoRadiusGeneric(CommandContext& ctx, size_t src_index, int flags) {
  const std::vector<std::string>& argv = ctx.argv;
  const std::string src = ctx.Name(argv[src_index]);
  std::optional<bool> found = GeoKeyExists(ctx, src);
  if (!found) return;
  const bool exists = *found;

  const std::string* store_key = nullptr;
  bool storedist = false;
  index::RedisGeoShape shape;
  size_t base_args = 0;
  if (flags & kRadiusCoords) {
    base_args = 6;
    shape.kind = index::RedisGeoShape::Kind::kRadius;
    if (!ParseLonLatOrReply(ctx, argv[2], argv[3], &shape.centre)) return;
    if (!ParseDistanceOrReply(ctx, argv[4], argv[5], &shape.radius,
                              &shape.unit_to_meters)) {
      return;
    }
  } else if ((flags & kRadiusMember) && !exists) {
    // Redis goes on parsing the options to pick the reply.
    base_args = 5;
  } else if (flags & kRadiusMember) {
    base_args = 5;
    shape.kind = index::RedisGeoShape::Kind::kRadius;
    if (!MemberCentreOrReply(ctx, src, argv[2], &shape.centre)) return;
    if (!ParseDistanceOrReply(ctx, argv[3], argv[4], &shape.radius,
                              &shape.unit_to_meters)) {
      return;
    }
  } else {
    base_args = 2;
    if (flags & kGeoSearchStore) {
      base_args = 3;
      store_key = &argv[1];
    }
  }

  bool withdist = false, withhash = false, withcoord = false;
  bool frommember = false, fromloc = false, byradius = false, bybox = false;
  bool any = false;
  int64_t count = 0;
  index::RedisGeoSort sort = index::RedisGeoSort::kNone;
  const size_t remaining =
      argv.size() > base_args ? argv.size() - base_args : 0;
  for (size_t i = 0; i < remaining; ++i) {
    const std::string& arg = argv[base_args + i];
    auto is = [&](const char* word) { return EqualsIgnoreCase(arg, word); };
    if (is("withdist")) {
      withdist = true;
    } else if (is("withhash")) {
      withhash = true;
    } else if (is("withcoord")) {
      withcoord = true;
    } else if (is("any")) {
      any = true;
    } else if (is("asc")) {
      sort = index::RedisGeoSort::kAsc;
    } else if (is("desc")) {
      sort = index::RedisGeoSort::kDesc;
    } else if (is("count") && i + 1 < remaining) {
      if (!ParseInt64(argv[base_args + i + 1], &count)) {
        return ctx.reply.Error(kNotIntegerError);
      }
      if (count <= 0) return ctx.reply.Error("COUNT must be > 0");
      ++i;
    } else if ((is("store") || is("storedist")) && i + 1 < remaining &&
               !(flags & kNoStore) && !(flags & kGeoSearch)) {
      store_key = &argv[base_args + i + 1];
      storedist = is("storedist");
      ++i;
    } else if (is("storedist") && (flags & kGeoSearch) &&
               (flags & kGeoSearchStore)) {
      storedist = true;
    } else if (is("frommember") && i + 1 < remaining && (flags & kGeoSearch) &&
               !fromloc) {
      // Without a source key Redis parses on and replies when done.
      if (exists && !MemberCentreOrReply(ctx, src, argv[base_args + i + 1],
                                         &shape.centre)) {
        return;
      }
      frommember = true;
      ++i;
    } else if (is("fromlonlat") && i + 2 < remaining && (flags & kGeoSearch) &&
               !frommember) {
      if (!ParseLonLatOrReply(ctx, argv[base_args + i + 1],
                              argv[base_args + i + 2], &shape.centre)) {
        return;
      }
      fromloc = true;
      i += 2;
    } else if (is("byradius") && i + 2 < remaining && (flags & kGeoSearch) &&
               !bybox) {
      if (!ParseDistanceOrReply(ctx, argv[base_args + i + 1],
                                argv[base_args + i + 2], &shape.radius,
                                &shape.unit_to_meters)) {
        return;
      }
      shape.kind = index::RedisGeoShape::Kind::kRadius;
      byradius = true;
      i += 2;
    } else if (is("bybox") && i + 3 < remaining && (flags & kGeoSearch) &&
               !byradius) {
      if (!ParseBoxOrReply(ctx, argv[base_args + i + 1],
                           argv[base_args + i + 2], argv[base_args + i + 3],
                           &shape.width, &shape.height,
                           &shape.unit_to_meters)) {
        return;
      }
      shape.kind = index::RedisGeoShape::Kind::kBox;
      bybox = true;
      i += 3;
    } else {
      return ctx.reply.Error(kSyntaxError);
    }
  }

  if (store_key != nullptr && (withdist || withhash || withcoord)) {
    return ctx.reply.Error(absl::StrCat(
        (flags & kGeoSearchStore) ? "GEOSEARCHSTORE"
                                  : "STORE option in GEORADIUS",
        " is not compatible with WITHDIST, WITHHASH and WITHCOORD options"));
  }
  if ((flags & kGeoSearch) && !(frommember || fromloc)) {
    return ctx.reply.Error(absl::StrCat(
        "exactly one of FROMMEMBER or FROMLONLAT can be specified for ",
        argv[0]));
  }
  if ((flags & kGeoSearch) && !(byradius || bybox)) {
    return ctx.reply.Error(absl::StrCat(
        "exactly one of BYRADIUS and BYBOX can be specified for ", argv[0]));
  }
  if (any && count == 0) {
    return ctx.reply.Error("the ANY argument requires COUNT argument");
  }
  if (store_key != nullptr && storedist) {
    return ctx.reply.Error(kStoreDistError);
  }

  std::string dest;
  if (store_key != nullptr) {
    dest = ctx.Name(*store_key);
    if (dest.size() > storage::kMaxCollectionBytes) {
      return ctx.reply.Error(
          absl::StrCat("key is ", store_key->size(),
                       " bytes; trackdb's GEO keys are at most ",
                       storage::kMaxCollectionBytes));
    }
  }
  if (!exists) {
    if (store_key == nullptr) return ctx.reply.Array(0);
    if (!ctx.Check(DeleteAnyKey(ctx.store(), dest).status())) return;
    return ctx.reply.Integer(0);
  }

  Candidates candidates;
  if (!ctx.Check(FindCandidates(ctx.store(), src, shape, store_key != nullptr,
                                &candidates))) {
    return;
  }
  const std::vector<index::RedisGeoResult> results = index::RedisGeoSearch(
      shape, candidates.list, index::RedisGeoReplyOptions{sort, count, any});

  if (store_key != nullptr) {
    std::vector<storage::TrackPoint> points;
    points.reserve(results.size());
    for (const index::RedisGeoResult& r : results) {
      points.push_back(candidates.points.at(r.member));
    }
    if (points.empty()) {
      if (!ctx.Check(DeleteAnyKey(ctx.store(), dest).status())) return;
    } else if (!ctx.Check(ReplaceWithPoints(ctx.store(), dest, points))) {
      return;
    }
    return ctx.reply.Integer(static_cast<int64_t>(results.size()));
  }

  const size_t options =
      (withdist ? 1 : 0) + (withhash ? 1 : 0) + (withcoord ? 1 : 0);
  ctx.reply.Array(results.size());
  for (const index::RedisGeoResult& r : results) {
    if (options > 0) ctx.reply.Array(options + 1);
    ctx.reply.Bulk(r.member);
    if (withdist) {
      ctx.reply.Bulk(
          index::RedisFormatDistance(r.distance_m, shape.unit_to_meters));
    }
    if (withhash) ctx.reply.Integer(static_cast<int64_t>(r.score));
    if (withcoord) {
      const index::LatLng p = index::RedisGeoScoreToLatLng(r.score);
      ctx.reply.Array(2);
      ctx.reply.DoubleText(index::RedisFormatCoordinate(p.lon));
      ctx.reply.DoubleText(index::RedisFormatCoordinate(p.lat));
    }
  }
}

}  // namespace

TRACKDB_RESP_COMMAND_FAMILY(geo_search, table) {
  table->Add(
      "geosearch", -7,
      [](CommandContext& ctx) { GeoRadiusGeneric(ctx, 1, kGeoSearch); },
      {"readonly"}, 1, 1, 1, RunsOn::kWorker);
  table->Add(
      "geosearchstore", -8,
      [](CommandContext& ctx) {
        GeoRadiusGeneric(ctx, 2, kGeoSearch | kGeoSearchStore);
      },
      {"write", "denyoom"}, 1, 2, 1, RunsOn::kWorker);
  table->Add(
      "georadius", -6,
      [](CommandContext& ctx) { GeoRadiusGeneric(ctx, 1, kRadiusCoords); },
      {"write", "denyoom", "movablekeys"}, 1, 1, 1, RunsOn::kWorker);
  table->Add(
      "georadiusbymember", -5,
      [](CommandContext& ctx) { GeoRadiusGeneric(ctx, 1, kRadiusMember); },
      {"write", "denyoom", "movablekeys"}, 1, 1, 1, RunsOn::kWorker);
  table->Add(
      "georadius_ro", -6,
      [](CommandContext& ctx) {
        GeoRadiusGeneric(ctx, 1, kRadiusCoords | kNoStore);
      },
      {"readonly"}, 1, 1, 1, RunsOn::kWorker);
  table->Add(
      "georadiusbymember_ro", -5,
      [](CommandContext& ctx) {
        GeoRadiusGeneric(ctx, 1, kRadiusMember | kNoStore);
      },
      {"readonly"}, 1, 1, 1, RunsOn::kWorker);
}

}  // namespace trackdb::resp
