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
// A plain sorted set as the source (geo_source.h) is read whole: every
// member is a candidate, and STORE writes a sorted set of the results at
// their scores.
//
// GEOSEARCH and GEOSEARCHSTORE also take Valkey 9.0's BYPOLYGON
// num-vertices lon lat [lon lat ...] (instead of FROM... and BY...), with
// Valkey's errors, centre, areas, order and WITHDIST in metres; a member is
// inside as trackdb's polygons say (RedisGeoShape::Polygon): boundary
// included, crossing edges refused. Its candidates come from the box of
// the vertices. A search missing its shape gets Redis 7.0's error, which
// names BYRADIUS and BYBOX only.
//
// Storing (GEOSEARCHSTORE, GEORADIUS* STORE): the destination key is
// replaced, as Redis's setKey does whatever it held, by a GEO key whose
// members are the results at their source positions (each result's latest
// point is copied), in one storage batch. STOREDIST stores a plain sorted
// set (typed_zset.h) of the results' distances from the centre, in the
// search's unit, as Redis does, also replacing whatever the destination
// held in one batch. In both, the search reads the source before the
// destination is written: a write to the source in between may or may not
// be in the stored result.
#include <algorithm>
#include <cstdint>
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
#include "model/validate.h"
#include "model/clock.h"
#include "service/resp/commands/geo_args.h"
#include "service/resp/commands/typed_zset.h"
#include "service/resp/dispatch/command.h"
#include "service/resp/dispatch/option_words.h"
#include "service/resp/dispatch/reply_errors.h"
#include "types/codec/redis_number.h"
#include "types/geo_key.h"
#include "types/geo_source.h"
#include "types/key_type.h"

namespace trackdb::resp {
namespace {

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
                         types::ZsetKind kind, const std::string& member,
                         index::LatLng* centre) {
  auto scores =
      types::GeoSourceScores(ctx.store(), name, kind, {member}, NowMs());
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
  absl::flat_hash_map<std::string, model::TrackPoint> points;  // for STORE
  // A plain sorted set's members at their stored scores, for STORE.
  absl::flat_hash_map<std::string, double> zset_scores;
};

// The candidates whose stored positions `region` holds (null: every
// member).
absl::Status FindCandidates(storage::TrackStore& store, const std::string& name,
                            const index::Region* region, bool keep_points,
                            Candidates* out) {
  auto visit = [&](const model::TrackPoint& p) {
    std::optional<uint64_t> score = index::RedisGeoMemberScore({p.lat, p.lon});
    if (!score) return true;  // no Redis score: Redis could not hold it
    out->list.push_back({p.entity, *score});
    if (keep_points) out->points.emplace(p.entity, p);
    return true;
  };
  if (region == nullptr) return store.ScanLatest(name, visit);
  // A search needs only ids and positions; STORE needs whole points.
  storage::ScanOptions options;
  options.positions_only = !keep_points;
  return store.ScanRegion(name, *region, visit, options);
}

// The candidates within `radius` metres of `centre` (stored positions).
absl::Status FindCandidatesNear(storage::TrackStore& store,
                                const std::string& name,
                                const index::LatLng& centre, double radius,
                                bool keep_points, Candidates* out) {
  if (!(radius < kWholeSphereMeters)) {
    return FindCandidates(store, name, nullptr, keep_points, out);
  }
  absl::StatusOr<index::CircleRegion> circle =
      index::CircleRegion::Create(centre, radius);
  if (!circle.ok()) return circle.status();
  return FindCandidates(store, name, &*circle, keep_points, out);
}

// Every candidate the shape may accept: a polygon's from the box of its
// vertices, a box's from its candidate rectangle (where it has one), the
// others' from the circle around their centre.
absl::Status FindAllCandidates(storage::TrackStore& store,
                               const std::string& name,
                               const index::RedisGeoShape& shape,
                               bool keep_points, Candidates* out) {
  if (shape.kind == index::RedisGeoShape::Kind::kBox) {
    if (std::optional<index::RectRegion> rect =
            index::RedisGeoBoxCandidates(shape)) {
      return FindCandidates(store, name, &*rect, keep_points, out);
    }
  }
  if (shape.kind != index::RedisGeoShape::Kind::kPolygon) {
    return FindCandidatesNear(store, name, shape.centre,
                              index::RedisGeoCandidateRadiusMeters(shape),
                              keep_points, out);
  }
  absl::StatusOr<index::RectRegion> box =
      index::RedisGeoPolygonCandidates(shape);
  if (!box.ok()) return box.status();
  return FindCandidates(store, name, &*box, keep_points, out);
}

// The reply's members, ranked as Redis ranks them. A search that wants the
// nearest few (COUNT n, ASC) looks in growing circles first and stops at the
// first whose members decide the reply (index::RedisGeoNearestFromInner):
// "the 10 nearest within 50 km" reads the few hundred members nearest the
// centre, not the 50 km circle. Each circle has 16 times the area of the one
// before and at most 1/64 of the whole search's, so a search the circles
// cannot decide reads under 2% more members; each circle also costs a
// covering (~40 us), small beside a search of a kilometre or more, the only
// ones that try circles.
absl::Status FindResults(storage::TrackStore& store, const std::string& name,
                         const index::RedisGeoShape& shape,
                         const index::RedisGeoReplyOptions& options,
                         bool keep_points, Candidates* candidates,
                         std::vector<index::RedisGeoResult>* results) {
  constexpr double kFirstCircleMeters = 100;
  const double radius = index::RedisGeoCandidateRadiusMeters(shape);
  if (index::RedisGeoWantsNearest(options)) {
    for (double r = kFirstCircleMeters;
         r <= radius / 8 && r < kWholeSphereMeters; r *= 4) {
      *candidates = Candidates();
      if (absl::Status s = FindCandidatesNear(store, name, shape.centre, r,
                                              keep_points, candidates);
          !s.ok()) {
        return s;
      }
      std::optional<std::vector<index::RedisGeoResult>> nearest =
          index::RedisGeoNearestFromInner(shape, candidates->list, r,
                                          options.count);
      if (nearest) {
        *results = *std::move(nearest);
        return absl::OkStatus();
      }
    }
  }
  *candidates = Candidates();
  if (absl::Status s =
          FindAllCandidates(store, name, shape, keep_points, candidates);
      !s.ok()) {
    return s;
  }
  *results = index::RedisGeoSearch(shape, candidates->list, options);
  return absl::OkStatus();
}

// A search of a plain sorted set (geo_source.h): the members in the score
// ranges Redis scans are the candidates. `scores` (null: not wanted) gets
// each result's stored score.
absl::Status SearchPlainZset(storage::TrackStore& store,
                             const std::string& name,
                             const index::RedisGeoShape& shape,
                             const index::RedisGeoReplyOptions& options,
                             std::vector<index::RedisGeoResult>* results,
                             absl::flat_hash_map<std::string, double>* scores) {
  absl::StatusOr<std::vector<types::ZEntry>> members =
      types::PlainZsetGeoCandidates(
          store, name, index::ComputeRedisGeoAreas(shape), NowMs());
  if (!members.ok()) return members.status();
  std::vector<index::RedisGeoCandidate> candidates;
  candidates.reserve(members->size());
  for (const types::ZEntry& m : *members) {
    candidates.push_back({m.member, *types::GeohashOfZsetScore(m.score)});
  }
  *results = index::RedisGeoSearch(shape, candidates, options);
  if (scores != nullptr) {
    for (types::ZEntry& m : *members)
      scores->emplace(std::move(m.member), m.score);
  }
  return absl::OkStatus();
}

// A search as its arguments ask for it (georadiusGeneric's locals).
struct SearchRequest {
  std::string src;  // the source key's storage name
  types::ZsetKind kind = types::ZsetKind::kNone;
  bool exists = false;  // whether the source key exists
  index::RedisGeoShape shape;
  const std::string* store_key = nullptr;  // STORE / GEOSEARCHSTORE's key
  bool storedist = false;
  bool withdist = false, withhash = false, withcoord = false;
  bool frommember = false, fromloc = false, byradius = false, bybox = false;
  bool bypolygon = false;
  bool any = false;
  int64_t count = 0;
  index::RedisGeoSort sort = index::RedisGeoSort::kNone;
};

// The arguments before the options: GEORADIUS's centre and radius,
// GEORADIUSBYMEMBER's member and radius (parsed only when the key exists,
// as Redis goes on parsing the options to pick the reply), GEOSEARCHSTORE's
// destination. Sets `*options_at` to the first option's index; false once
// it has replied an error.
bool ParseLeadingArgsOrReply(CommandContext& ctx, int flags, SearchRequest* req,
                             size_t* options_at) {
  const std::vector<std::string>& argv = ctx.argv;
  if (flags & kRadiusCoords) {
    *options_at = 6;
    req->shape.kind = index::RedisGeoShape::Kind::kRadius;
    return ParseLonLatOrReply(ctx, argv[2], argv[3], &req->shape.centre) &&
           ParseDistanceOrReply(ctx, argv[4], argv[5], &req->shape.radius,
                                &req->shape.unit_to_meters);
  }
  if (flags & kRadiusMember) {
    *options_at = 5;
    if (!req->exists) return true;
    req->shape.kind = index::RedisGeoShape::Kind::kRadius;
    return MemberCentreOrReply(ctx, req->src, req->kind, argv[2],
                               &req->shape.centre) &&
           ParseDistanceOrReply(ctx, argv[3], argv[4], &req->shape.radius,
                                &req->shape.unit_to_meters);
  }
  *options_at = 2;
  if (flags & kGeoSearchStore) {
    *options_at = 3;
    req->store_key = &argv[1];
  }
  return true;
}

// A parsed option's outcome: how many arguments it took (the word
// included), or one of these.
constexpr int kUnknownOption = -1;  // not an option this function knows
constexpr int kOptionError = 0;     // an error it has replied

// Valkey 9.0's BYPOLYGON num-vertices lon lat [lon lat ...] at argv[i],
// which has at least two arguments after it; then the domain's limit on
// vertices and trackdb's polygon rules (RedisGeoShape::Polygon).
int ParsePolygonOrReply(CommandContext& ctx, size_t i, SearchRequest* req) {
  const std::vector<std::string>& argv = ctx.argv;
  const size_t left = argv.size() - i - 1;
  int64_t n = 0;
  if (!types::ParseInt64(argv[i + 1], &n) || n < INT32_MIN || n > INT32_MAX) {
    ctx.reply.Error("invalid number of vertices");
    return kOptionError;
  }
  if (n < 3 || static_cast<int64_t>((left - 1) / 2) < n) {
    ctx.reply.Error("GEOSEARCH BYPOLYGON must have at least 3 vertices");
    return kOptionError;
  }
  if (!ValidPolygonSizeOrReply(ctx, n)) return kOptionError;
  std::vector<index::LatLng> vertices(n);
  for (int64_t v = 0; v < n; ++v) {
    if (!ParseLonLatOrReply(ctx, argv[i + 2 + 2 * v], argv[i + 3 + 2 * v],
                            &vertices[v])) {
      return kOptionError;
    }
  }
  absl::StatusOr<index::RedisGeoShape> shape =
      index::RedisGeoShape::Polygon(std::move(vertices));
  if (!shape.ok()) {
    ctx.reply.Error(
        absl::StrCat("invalid polygon: ", shape.status().message()));
    return kOptionError;
  }
  req->shape = *std::move(shape);
  req->bypolygon = true;
  return static_cast<int>(2 + 2 * n);
}

// Whether GEOSEARCH has a centre or an area other than BYPOLYGON's.
bool HasCentreOrArea(const SearchRequest& req) {
  return req.byradius || req.bybox || req.frommember || req.fromloc;
}

// GEOSEARCH's FROMMEMBER and FROMLONLAT at argv[i].
int ParseCentreOption(CommandContext& ctx, size_t i, SearchRequest* req) {
  const std::vector<std::string>& argv = ctx.argv;
  const size_t left = argv.size() - i - 1;  // arguments after this one
  if (EqualsIgnoreCase(argv[i], "frommember") && left >= 1 && !req->fromloc) {
    // Without a source key Redis parses on and replies when done.
    if (req->exists && !MemberCentreOrReply(ctx, req->src, req->kind,
                                            argv[i + 1], &req->shape.centre)) {
      return kOptionError;
    }
    req->frommember = true;
    return 2;
  }
  if (EqualsIgnoreCase(argv[i], "fromlonlat") && left >= 2 &&
      !req->frommember) {
    if (!ParseLonLatOrReply(ctx, argv[i + 1], argv[i + 2],
                            &req->shape.centre)) {
      return kOptionError;
    }
    req->fromloc = true;
    return 3;
  }
  return kUnknownOption;
}

// GEOSEARCH's BYRADIUS and BYBOX at argv[i].
int ParseAreaOption(CommandContext& ctx, size_t i, SearchRequest* req) {
  const std::vector<std::string>& argv = ctx.argv;
  const size_t left = argv.size() - i - 1;  // arguments after this one
  if (EqualsIgnoreCase(argv[i], "byradius") && left >= 2 && !req->bybox) {
    if (!ParseDistanceOrReply(ctx, argv[i + 1], argv[i + 2], &req->shape.radius,
                              &req->shape.unit_to_meters)) {
      return kOptionError;
    }
    req->shape.kind = index::RedisGeoShape::Kind::kRadius;
    req->byradius = true;
    return 3;
  }
  if (EqualsIgnoreCase(argv[i], "bybox") && left >= 3 && !req->byradius) {
    if (!ParseBoxOrReply(ctx, argv[i + 1], argv[i + 2], argv[i + 3],
                         &req->shape.width, &req->shape.height,
                         &req->shape.unit_to_meters)) {
      return kOptionError;
    }
    req->shape.kind = index::RedisGeoShape::Kind::kBox;
    req->bybox = true;
    return 4;
  }
  return kUnknownOption;
}

// GEOSEARCH's FROMMEMBER, FROMLONLAT, BYRADIUS, BYBOX and BYPOLYGON at
// argv[i]. BYPOLYGON excludes the others, before or after it.
int ParseSearchAreaOption(CommandContext& ctx, int flags, size_t i,
                          SearchRequest* req) {
  const std::vector<std::string>& argv = ctx.argv;
  const size_t left = argv.size() - i - 1;  // arguments after this one
  if (!(flags & kGeoSearch)) return kUnknownOption;
  if (EqualsIgnoreCase(argv[i], "bypolygon") && left >= 2 &&
      !HasCentreOrArea(*req)) {
    return ParsePolygonOrReply(ctx, i, req);
  }
  if (req->bypolygon) return kUnknownOption;
  const int took = ParseCentreOption(ctx, i, req);
  if (took != kUnknownOption) return took;
  return ParseAreaOption(ctx, i, req);
}

// WITHDIST, WITHHASH, WITHCOORD, ANY, ASC and DESC: whether `word` is one
// (recorded in `req`).
bool ParseReplyFlag(const std::string& word, SearchRequest* req) {
  if (EqualsIgnoreCase(word, "withdist")) {
    req->withdist = true;
  } else if (EqualsIgnoreCase(word, "withhash")) {
    req->withhash = true;
  } else if (EqualsIgnoreCase(word, "withcoord")) {
    req->withcoord = true;
  } else if (EqualsIgnoreCase(word, "any")) {
    req->any = true;
  } else if (EqualsIgnoreCase(word, "asc")) {
    req->sort = index::RedisGeoSort::kAsc;
  } else if (EqualsIgnoreCase(word, "desc")) {
    req->sort = index::RedisGeoSort::kDesc;
  } else {
    return false;
  }
  return true;
}

// COUNT's number, `value`.
int ParseCountOption(CommandContext& ctx, const std::string& value,
                     SearchRequest* req) {
  if (!types::ParseInt64(value, &req->count)) {
    ctx.reply.Error(kNotIntegerError);
    return kOptionError;
  }
  if (req->count <= 0) {
    ctx.reply.Error("COUNT must be > 0");
    return kOptionError;
  }
  return 2;
}

// STORE key and STOREDIST key (GEORADIUS*, not _RO), or GEOSEARCHSTORE's
// STOREDIST, at argv[i].
int ParseStoreOption(CommandContext& ctx, int flags, size_t i,
                     SearchRequest* req) {
  const std::vector<std::string>& argv = ctx.argv;
  const size_t left = argv.size() - i - 1;
  const bool store = EqualsIgnoreCase(argv[i], "store");
  const bool storedist = EqualsIgnoreCase(argv[i], "storedist");
  if ((store || storedist) && left >= 1 && !(flags & kNoStore) &&
      !(flags & kGeoSearch)) {
    req->store_key = &argv[i + 1];
    req->storedist = storedist;
    return 2;
  }
  if (storedist && (flags & kGeoSearch) && (flags & kGeoSearchStore)) {
    req->storedist = true;
    return 1;
  }
  return kUnknownOption;
}

// The reply options (WITH*, ANY, ASC, DESC, COUNT) and STORE / STOREDIST
// at argv[i].
int ParseReplyOption(CommandContext& ctx, int flags, size_t i,
                     SearchRequest* req) {
  const std::vector<std::string>& argv = ctx.argv;
  const size_t left = argv.size() - i - 1;
  if (ParseReplyFlag(argv[i], req)) return 1;
  if (EqualsIgnoreCase(argv[i], "count") && left >= 1) {
    return ParseCountOption(ctx, argv[i + 1], req);
  }
  return ParseStoreOption(ctx, flags, i, req);
}

// Every option from argv[options_at] on, in Redis's order: the first error
// Redis would report is the one replied. False once it has replied.
bool ParseOptionsOrReply(CommandContext& ctx, int flags, size_t options_at,
                         SearchRequest* req) {
  for (size_t i = options_at; i < ctx.argv.size();) {
    int took = ParseReplyOption(ctx, flags, i, req);
    if (took == kUnknownOption)
      took = ParseSearchAreaOption(ctx, flags, i, req);
    if (took == kUnknownOption) {
      ctx.reply.Error(kSyntaxError);
      return false;
    }
    if (took == kOptionError) return false;
    i += took;
  }
  return true;
}

// STORE and STOREDIST take no WITH* options.
bool StoreOptionsCompatibleOrReply(CommandContext& ctx, int flags,
                                   const SearchRequest& req) {
  if (req.store_key == nullptr ||
      !(req.withdist || req.withhash || req.withcoord)) {
    return true;
  }
  ctx.reply.Error(absl::StrCat(
      (flags & kGeoSearchStore) ? "GEOSEARCHSTORE"
                                : "STORE option in GEORADIUS",
      " is not compatible with WITHDIST, WITHHASH and WITHCOORD options"));
  return false;
}

// GEOSEARCH's centre and shape, each given once.
bool GeoSearchShapeGivenOrReply(CommandContext& ctx, const SearchRequest& req) {
  const std::vector<std::string>& argv = ctx.argv;
  if (!req.bypolygon && !(req.frommember || req.fromloc)) {
    ctx.reply.Error(absl::StrCat(
        "exactly one of FROMMEMBER or FROMLONLAT can be specified for ",
        argv[0]));
    return false;
  }
  // Redis 7.0's message, which names only its two shapes.
  if (!(req.byradius || req.bybox || req.bypolygon)) {
    ctx.reply.Error(absl::StrCat(
        "exactly one of BYRADIUS and BYBOX can be specified for ", argv[0]));
    return false;
  }
  return true;
}

// The checks Redis makes once every option is parsed, then trackdb's
// limit on a key's name. Sets `dest` to the destination's storage name
// when storing.
bool ValidateRequestOrReply(CommandContext& ctx, int flags,
                            const SearchRequest& req, std::string* dest) {
  if (!StoreOptionsCompatibleOrReply(ctx, flags, req)) return false;
  if ((flags & kGeoSearch) && !GeoSearchShapeGivenOrReply(ctx, req)) {
    return false;
  }
  if (req.any && req.count == 0) {
    ctx.reply.Error("the ANY argument requires COUNT argument");
    return false;
  }
  if (req.store_key == nullptr) return true;
  *dest = ctx.Name(*req.store_key);
  return ValidGeoKeyOrReply(ctx, *req.store_key);
}

// STORE: replaces `dest` with the results at their source positions.
void StoreResults(CommandContext& ctx, const std::string& dest,
                  const Candidates& candidates,
                  const std::vector<index::RedisGeoResult>& results) {
  std::vector<model::TrackPoint> points;
  points.reserve(results.size());
  for (const index::RedisGeoResult& r : results) {
    points.push_back(candidates.points.at(r.member));
  }
  // One batch: whatever `dest` held goes, the results arrive.
  if (!ctx.Check(ctx.store().ReplaceWithPoints(dest, points))) return;
  return ctx.reply.Integer(static_cast<int64_t>(results.size()));
}

// STORE from a plain sorted set: replaces `dest` with a sorted set of the
// results at their scores, as Redis stores any search, in one batch.
void StoreScores(CommandContext& ctx, const std::string& dest,
                 const Candidates& candidates,
                 const std::vector<index::RedisGeoResult>& results) {
  RunZsetStore(
      ctx, {dest}, dest, [&](storage::TypedTxn&, Reply&, ZsetResult* result) {
        std::vector<types::ZEntry> entries;
        entries.reserve(results.size());
        for (const index::RedisGeoResult& r : results) {
          entries.push_back({r.member, candidates.zset_scores.at(r.member)});
        }
        std::sort(entries.begin(), entries.end(), types::ZEntryLess);
        *result = std::move(entries);
        return absl::OkStatus();
      });
}

// STOREDIST: replaces `dest` with a sorted set of the results' distances
// from the centre in the search's unit (Redis's score), in one batch.
void StoreDistances(CommandContext& ctx, const std::string& dest,
                    const SearchRequest& req,
                    const std::vector<index::RedisGeoResult>& results) {
  RunZsetStore(ctx, {dest}, dest,
               [&](storage::TypedTxn&, Reply&, ZsetResult* result) {
                 std::vector<types::ZEntry> entries;
                 entries.reserve(results.size());
                 for (const index::RedisGeoResult& r : results) {
                   entries.push_back(
                       {r.member, r.distance_m / req.shape.unit_to_meters});
                 }
                 std::sort(entries.begin(), entries.end(), types::ZEntryLess);
                 *result = std::move(entries);
                 return absl::OkStatus();
               });
}

// The results, each with what WITHDIST, WITHHASH and WITHCOORD ask for.
void ReplyResults(CommandContext& ctx, const SearchRequest& req,
                  const std::vector<index::RedisGeoResult>& results) {
  const size_t options =
      (req.withdist ? 1 : 0) + (req.withhash ? 1 : 0) + (req.withcoord ? 1 : 0);
  ctx.reply.Array(results.size());
  for (const index::RedisGeoResult& r : results) {
    if (options > 0) ctx.reply.Array(options + 1);
    ctx.reply.Bulk(r.member);
    if (req.withdist) {
      ctx.reply.Bulk(
          index::RedisFormatDistance(r.distance_m, req.shape.unit_to_meters));
    }
    if (req.withhash) ctx.reply.Integer(static_cast<int64_t>(r.score));
    if (req.withcoord) {
      const index::LatLng p = index::RedisGeoScoreToLatLng(r.score);
      ctx.reply.Array(2);
      ctx.reply.DoubleText(index::RedisFormatCoordinate(p.lon));
      ctx.reply.DoubleText(index::RedisFormatCoordinate(p.lat));
    }
  }
}

// A search of a missing key: no results, and a STORE empties `dest`.
void ReplyNoSource(CommandContext& ctx, bool store, const std::string& dest) {
  if (!store) return ctx.reply.Array(0);
  if (!ctx.Check(types::DeleteAnyKey(ctx.store(), dest, NowMs()).status())) {
    return;
  }
  ctx.reply.Integer(0);
}

// The ranked results of `req` over its source (a plain sorted set or a GEO
// key), with what a STORE needs in `candidates`.
absl::Status SearchSource(CommandContext& ctx, const SearchRequest& req,
                          bool store, Candidates* candidates,
                          std::vector<index::RedisGeoResult>* results) {
  const index::RedisGeoReplyOptions options{req.sort, req.count, req.any};
  if (req.kind == types::ZsetKind::kTyped) {
    return SearchPlainZset(ctx.store(), req.src, req.shape, options, results,
                           store ? &candidates->zset_scores : nullptr);
  }
  return FindResults(ctx.store(), req.src, req.shape, options, store,
                     candidates, results);
}

// georadiusGeneric: parse (leading arguments, options, checks), then find
// the candidates, rank them as Redis would, and reply or store.
void GeoRadiusGeneric(CommandContext& ctx, size_t src_index, int flags) {
  SearchRequest req;
  req.src = ctx.Name(ctx.argv[src_index]);
  std::optional<types::ZsetKind> kind = ZsetKindOrReply(ctx, req.src);
  if (!kind) return;
  req.kind = *kind;
  req.exists = *kind != types::ZsetKind::kNone;
  size_t options_at = 0;
  std::string dest;
  if (!ParseLeadingArgsOrReply(ctx, flags, &req, &options_at) ||
      !ParseOptionsOrReply(ctx, flags, options_at, &req) ||
      !ValidateRequestOrReply(ctx, flags, req, &dest)) {
    return;
  }
  const bool store = req.store_key != nullptr;
  if (!req.exists) return ReplyNoSource(ctx, store, dest);

  Candidates candidates;
  std::vector<index::RedisGeoResult> results;
  if (!ctx.Check(SearchSource(ctx, req, store, &candidates, &results))) {
    return;
  }
  if (store && req.storedist) {
    return StoreDistances(ctx, dest, req, results);
  }
  if (store && req.kind == types::ZsetKind::kTyped) {
    return StoreScores(ctx, dest, candidates, results);
  }
  if (store) return StoreResults(ctx, dest, candidates, results);
  ReplyResults(ctx, req, results);
}

// Whether a search is small enough to run on its connection's loop, as
// point commands do: a radius of at most 1 km or a box of at most 2 km a
// side, and no STORE. Its candidates come from the in-memory latest index
// at a cost that follows its hits: a few hundred at the density of 1M
// entities in a city, tens of microseconds, less than the two thread
// hand-offs a worker costs. Anything else runs on a worker.
bool SmallSearch(const std::vector<std::string>& argv) {
  constexpr double kMaxRadiusMeters = 1000, kMaxSideMeters = 2000;
  // A size in metres from argv[i..] ("<n>... <unit>"); nullopt if unreadable.
  auto meters = [&](size_t i, size_t unit) -> std::optional<double> {
    double n = 0;
    std::optional<double> to_meters = index::RedisUnitToMeters(argv[unit]);
    if (!to_meters || !types::ParseRedisDouble(argv[i], &n) || !(n >= 0)) {
      return std::nullopt;
    }
    return n * *to_meters;
  };
  bool small = false;
  for (size_t i = 1; i < argv.size(); ++i) {
    const size_t left = argv.size() - i - 1;
    if (EqualsIgnoreCase(argv[i], "store") ||
        EqualsIgnoreCase(argv[i], "storedist")) {
      return false;
    }
    if (EqualsIgnoreCase(argv[i], "byradius") && left >= 2) {
      const std::optional<double> r = meters(i + 1, i + 2);
      small = r && *r <= kMaxRadiusMeters;
    } else if (EqualsIgnoreCase(argv[i], "bybox") && left >= 3) {
      const std::optional<double> w = meters(i + 1, i + 3);
      const std::optional<double> h = meters(i + 2, i + 3);
      small = w && h && *w <= kMaxSideMeters && *h <= kMaxSideMeters;
    }
  }
  return small;
}

// GEORADIUS[_RO] key lon lat radius unit ...: the radius is positional.
bool SmallRadiusSearch(const std::vector<std::string>& argv) {
  if (argv.size() < 6) return false;
  std::vector<std::string> as_search = {"geosearch", "byradius", argv[4],
                                        argv[5]};
  as_search.insert(as_search.end(), argv.begin() + 6, argv.end());
  return SmallSearch(as_search);
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
  table->RunOnLoopWhen("geosearch", SmallSearch);
  table->RunOnLoopWhen("georadius", SmallRadiusSearch);
  table->RunOnLoopWhen("georadius_ro", SmallRadiusSearch);
}

}  // namespace trackdb::resp
