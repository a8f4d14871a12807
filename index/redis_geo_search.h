#ifndef TRACKDB_INDEX_REDIS_GEO_SEARCH_H_
#define TRACKDB_INDEX_REDIS_GEO_SEARCH_H_

// Which members Redis 7.0's GEOSEARCH / GEORADIUS / GEORADIUSBYMEMBER return,
// with which distance and in which order, decided exactly as Redis 7.0.15
// (src/geo.c, src/geohash_helper.c) decides it; and Valkey 9.0's GEOSEARCH
// BYPOLYGON, whose areas, centre, distances and order are Valkey's but
// whose membership test is trackdb's polygon (PolygonRegion, as gRPC's
// SearchPolygon), see RedisGeoShape::Polygon. Pure functions, no I/O.
//
// How Redis answers a search:
//   1. ComputeRedisGeoAreas: from the shape it picks a geohash step, the cell
//      holding the centre and its 8 neighbours, drops neighbours it judges
//      useless, and scans each remaining cell's score range [min, max) of the
//      sorted set, in a fixed order (RedisGeoAreas::scans).
//   2. Every member whose score lies in a scanned range is decoded to its
//      cell centre (RedisGeoScoreToLatLng) and tested by RedisGeoMatch: the
//      haversine distance for a radius, Redis's two-axis test for a box.
//   3. Without ASC/DESC the reply lists the accepted members in scan order:
//      by range, then by score, then by member name (the sorted set's order).
//      ASC/DESC sort that list by distance, keeping scan order among ties.
// A member is in the reply iff its score is in one of the scanned ranges AND
// RedisGeoMatch accepts it: RedisGeoSearchMatch combines both. Redis does not
// always scan everything the predicate accepts (e.g. for radii of thousands of
// km); trackdb reproduces those omissions too.
//
// Candidate region (for a store that keeps members' exact positions, not
// scores): RedisGeoCandidateRadiusMeters(shape) is the radius of a circle
// around the shape's centre that contains the STORED position of every member
// RedisGeoMatch can accept. Proof: RedisGeoMatch measures from the member's
// decoded position D, the centre of its step-26 cell. That cell spans
// 360/2^26 deg of longitude (<= 0.597 m) by 170.1/2^26 deg of latitude
// (<= 0.282 m), so the stored position P is within half its diagonal,
// <= 0.33 m, of D. A radius search accepts d(C, D) <= r, so
// d(C, P) <= r + 0.33 m. A box search accepts R*|lat_D - lat_C| <= h/2 and
// d((lon_C, lat_D), D) <= w/2 (both distances Redis computes), so by the
// triangle inequality through (lon_C, lat_D), d(C, D) <= h/2 + w/2 and
// d(C, P) <= w/2 + h/2 + 0.33 m. The 1 m margin leaves >= 0.6 m for floating
// point error in the haversine (under 0.2 m even near antipodes, where asin
// is ill-conditioned) and in the store's covering. Positions outside Redis's
// latitude range
// (|lat| > 85.05112878) have no score: Redis cannot hold them, so a store
// must drop such candidates (RedisGeoMemberScore returns nullopt).

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "index/geohash.h"
#include "index/latlng.h"
#include "index/region.h"

namespace trackdb::index {

// A GEOSEARCH shape as Redis keeps it: sizes in the command's unit plus the
// unit's factor to metres (RedisUnitToMeters in index/redis_geo_format.h).
// Redis multiplies by the factor at different points of its computation, and
// keeping the same representation keeps every result bit-identical.
// Preconditions (Redis rejects the command otherwise): centre within
// lon [-180, 180], lat [-85.05112878, 85.05112878]; sizes >= 0 and not NaN.
// For FROMMEMBER / GEORADIUSBYMEMBER the centre is the member's decoded
// position, RedisGeoScoreToLatLng(its score), not where it was added.
struct RedisGeoShape {
  enum class Kind { kRadius, kBox, kPolygon };
  Kind kind = Kind::kRadius;
  LatLng centre;
  double radius = 0;  // kRadius, in the unit.
  double width = 0;   // kBox, in the unit (east-west).
  double height = 0;  // kBox, in the unit (north-south).
  double unit_to_meters = 1;
  // kPolygon: the polygon, and the box of its vertices' coordinates.
  std::shared_ptr<const PolygonRegion> polygon;
  double lon_min = 0, lat_min = 0, lon_max = 0, lat_max = 0;

  static RedisGeoShape Radius(const LatLng& centre, double radius,
                              double unit_to_meters = 1);
  static RedisGeoShape Box(const LatLng& centre, double width, double height,
                           double unit_to_meters = 1);
  // GEOSEARCH BYPOLYGON (Valkey 9.0, src/geo.c) over `vertices` as the
  // client gave them (a closing repeat of the first counts as a vertex, as
  // in Valkey). As Valkey: the centre, which WITHDIST and ASC/DESC measure
  // from, is the vertices' spherical centroid (their unit vectors' mean);
  // the areas scanned come from the vertices' lon/lat box and the largest
  // distance from the centre to its corners; a member is tested at its
  // decoded position; distances are in metres. Unlike Valkey's ray casting
  // (half-open at the boundary, even-odd for edges that cross), a member
  // is inside as PolygonRegion::Contains says: boundary points are inside,
  // and a polygon whose edges cross is refused (INVALID_ARGUMENT), as
  // everywhere in trackdb, as is a polygon whose centre is beyond Redis's
  // latitudes (around a pole). Preconditions: every vertex within Redis's
  // GEO ranges.
  static absl::StatusOr<RedisGeoShape> Polygon(std::vector<LatLng> vertices);
};

// The score Redis stores for a member GEOADDed at p: the 52-bit geohash
// (RedisGeoScore), passed through a double as ZADD does. The two differ only
// at longitude 180 (or within rounding of it), whose geohash overflows to 54
// bits and may lose its lowest bit. nullopt where GEOADD fails (outside
// Redis's ranges).
std::optional<uint64_t> RedisGeoMemberScore(const LatLng& p);

// One sorted-set range Redis scans: scores in [min_score, max_score).
struct RedisGeoScanRange {
  GeohashBits cell;
  uint64_t min_score = 0;
  uint64_t max_score = 0;
};

// geohashCalculateAreasByShapeWGS84's result and the scans it leads to.
struct RedisGeoAreas {
  int step = 0;
  GeohashBits centre;
  GeohashArea centre_area{};
  // In GeohashDirection order; a neighbour Redis pruned is {0, 0}.
  std::array<GeohashBits, 8> neighbors{};
  // Redis's bounding box of the shape (shape->bounds), in degrees.
  double lon_min = 0, lat_min = 0, lon_max = 0, lat_max = 0;
  // The ranges in Redis's scan order: centre, N, S, E, W, NE, NW, SE, SW,
  // skipping pruned neighbours and any neighbour equal to the one scanned
  // just before it (Redis's duplicate skip, which matters at step 1). The
  // ranges are pairwise disjoint (tested), so a member is scanned at most
  // once.
  std::vector<RedisGeoScanRange> scans;
};

RedisGeoAreas ComputeRedisGeoAreas(const RedisGeoShape& shape);

// Index into areas.scans of the range holding `score`, or -1 if none does.
int RedisGeoScanIndex(const RedisGeoAreas& areas, uint64_t score);

// Redis's predicate on a member with score `score`: its distance in metres
// from the shape's centre (before conversion to the unit) if Redis accepts it,
// nullopt if not. Uses the decoded position, as Redis does.
std::optional<double> RedisGeoMatch(const RedisGeoShape& shape, uint64_t score);

// Both conditions for being in the reply; nullopt if either fails.
struct RedisGeoAccept {
  int scan_index = 0;  // Into RedisGeoAreas::scans.
  double distance_m = 0;
};
std::optional<RedisGeoAccept> RedisGeoSearchMatch(const RedisGeoAreas& areas,
                                                  const RedisGeoShape& shape,
                                                  uint64_t score);

// The radius in metres of the circle around shape.centre that contains the
// stored position of every member Redis can return (see the proof above):
// radius + 1 m for a radius, width/2 + height/2 + 1 m for a box. For a
// polygon, the largest distance from the centre to a corner of the
// vertices' box + 1 m: an estimate, for searches that try small circles
// first; its candidates come from RedisGeoPolygonCandidates.
double RedisGeoCandidateRadiusMeters(const RedisGeoShape& shape);

// A box's candidate region, tighter than the circle (the box's area, not
// its circumscribed circle's, and no distance per candidate): Redis accepts
// R*|lat_D - lat_C| <= h/2, so lat_D is within h/2R radians of lat_C; and
// d((lon_C, lat_D), D) = 2R asin(cos(lat_D) |sin(dlon/2)|) <= w/2, so
// |dlon| <= 2 asin(sin(w/4R) / cos(lat_D)), largest at the latitude
// farthest from the equator. Widened by 1e-5 degrees on each side for the
// stored position (within 2.7e-6 degrees of D) and rounding; crossing the
// antimeridian where it does. nullopt where that is no rectangle (it would
// reach a pole or wrap all longitudes): the circle then.
std::optional<RectRegion> RedisGeoBoxCandidates(const RedisGeoShape& shape);

// A polygon's candidate region: the vertices' box, 1e-5 degrees wider on
// each side. A member inside is inside that box at its decoded position,
// and its stored position is within half a step-26 cell (2.7e-6 degrees)
// of that.
absl::StatusOr<RectRegion> RedisGeoPolygonCandidates(
    const RedisGeoShape& shape);

// One member of a reply.
struct RedisGeoResult {
  std::string member;
  uint64_t score = 0;  // What WITHHASH returns.
  int scan_index = 0;
  double distance_m = 0;  // WITHDIST prints it divided by unit_to_meters.
};

// Redis's natural (unsorted) order: scan index, then score, then member bytes
// (the sorted set's tie order: memcmp, then shorter first).
bool RedisGeoNaturalLess(const RedisGeoResult& a, const RedisGeoResult& b);

enum class RedisGeoSort { kNone, kAsc, kDesc };

// The reply's options that shape the list: ASC/DESC and COUNT n [ANY]
// (count 0 = no COUNT).
struct RedisGeoReplyOptions {
  RedisGeoSort sort = RedisGeoSort::kNone;
  int64_t count = 0;
  bool any = false;
};

// Filters candidates (member name, Redis score) with RedisGeoSearchMatch and
// orders them as Redis's reply does: natural order; with ANY, the first
// `count` of it; COUNT without ANY implies ASC. ASC/DESC over the whole list
// use glibc's qsort, a stable merge sort: ties stay in natural order. When
// COUNT cuts the list Redis uses its pqsort, an unstable partial quicksort:
// it is replayed swap for swap, so which of several members at exactly equal
// distances make the cut, and their order, match Redis too. Then COUNT keeps
// the first `count`. Candidates must be distinct members.
struct RedisGeoCandidate {
  std::string member;
  uint64_t score = 0;
};
std::vector<RedisGeoResult> RedisGeoSearch(
    const RedisGeoShape& shape,
    const std::vector<RedisGeoCandidate>& candidates,
    const RedisGeoReplyOptions& options);

// Whether `options` ask for the nearest members only: COUNT n, nearest
// first (ASC, or no order), without ANY. Such a search can stop early.
bool RedisGeoWantsNearest(const RedisGeoReplyOptions& options);

// The reply RedisGeoSearch gives over ALL candidates to a search that wants
// the `count` nearest (RedisGeoWantsNearest), decided from `inner` only:
// the candidates whose stored positions lie within `inner_radius_m` of the
// shape's centre. nullopt when they cannot decide it. They can when at
// least `count` accepted members are within inner_radius_m - 1 m (measured,
// as Redis measures, from the decoded position, which is within 0.33 m of
// the stored one: so no such member is missing from `inner`, and every
// member not in `inner` is farther) and no two of the `count` nearest, nor
// the last of them and the next, are at equal distances: Redis orders ties
// with its partial quicksort over the whole list, which only the whole list
// can replay.
std::optional<std::vector<RedisGeoResult>> RedisGeoNearestFromInner(
    const RedisGeoShape& shape, const std::vector<RedisGeoCandidate>& inner,
    double inner_radius_m, int64_t count);

}  // namespace trackdb::index

#endif  // TRACKDB_INDEX_REDIS_GEO_SEARCH_H_
