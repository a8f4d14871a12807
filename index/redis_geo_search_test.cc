#include "index/redis_geo_search.h"

#include <cmath>
#include <cstdio>
#include <random>
#include <set>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "index/distance.h"
#include "index/geohash.h"
#include "index/interpolate.h"
#include "index/redis_geo_format.h"

namespace trackdb::index {
namespace {

using ::testing::ElementsAre;

constexpr double kPi = M_PI;

uint64_t Score(const LatLng& p) {
  const std::optional<uint64_t> s = RedisGeoMemberScore(p);
  EXPECT_TRUE(s) << p.lat << "," << p.lon;
  return s.value_or(0);
}

TEST(RedisGeoMemberScoreTest, IsTheGeohashBelow2To53) {
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> lat(kRedisLatMin, kRedisLatMax);
  std::uniform_real_distribution<double> lon(-180, 180);
  for (int i = 0; i < 1000; ++i) {
    const LatLng p{lat(rng), lon(rng)};
    EXPECT_EQ(RedisGeoMemberScore(p), RedisGeoScore(p));
  }
}

TEST(RedisGeoMemberScoreTest, Longitude180LosesItsLowBitAsInRedis) {
  // GEOADD k 180 10.123456789 m; ZSCORE k m -> 10138941743236416 (Redis
  // 7.0.15), one less than the 54-bit geohash.
  const LatLng p{10.123456789, 180};
  EXPECT_EQ(RedisGeoScore(p), 10138941743236417ULL);
  EXPECT_EQ(RedisGeoMemberScore(p), 10138941743236416ULL);
  EXPECT_FALSE(RedisGeoMemberScore({85.1, 0}));
}

TEST(ComputeRedisGeoAreasTest, RadiusZeroScansTheCentresOwnStep26Cell) {
  const LatLng c{38.115556, 13.361389};
  const RedisGeoAreas a = ComputeRedisGeoAreas(RedisGeoShape::Radius(c, 0));
  EXPECT_EQ(a.step, kRedisGeoStep);
  EXPECT_EQ(a.centre.bits, *RedisGeoScore(c));
  ASSERT_FALSE(a.scans.empty());
  EXPECT_EQ(a.scans[0].min_score, *RedisGeoScore(c));
  EXPECT_EQ(a.scans[0].max_score, *RedisGeoScore(c) + 1);
}

TEST(ComputeRedisGeoAreasTest, HugeRadiusScansEachStep1CellOnce) {
  // At step 1 north == south and east == west (moves wrap on a 2x2 grid):
  // Redis's skip of a repeat of the previous neighbour leaves 4 cells.
  const RedisGeoAreas a = ComputeRedisGeoAreas(
      RedisGeoShape::Radius({0, 0}, 20000, /*unit_to_meters=*/1000));
  EXPECT_EQ(a.step, 1);
  ASSERT_EQ(a.scans.size(), 4u);
  std::set<uint64_t> starts;
  for (const RedisGeoScanRange& r : a.scans) {
    EXPECT_EQ(r.max_score - r.min_score, 1ULL << 50);
    starts.insert(r.min_score);
  }
  EXPECT_THAT(starts, ElementsAre(0, 1ULL << 50, 2ULL << 50, 3ULL << 50));
}

TEST(ComputeRedisGeoAreasTest, ScansStartAtTheCentreAndAreAlignedCells) {
  std::mt19937_64 rng(2);
  std::uniform_real_distribution<double> lat(kRedisLatMin, kRedisLatMax);
  std::uniform_real_distribution<double> lon(-180, 180);
  std::uniform_real_distribution<double> log_size(-1, 7);
  for (int i = 0; i < 2000; ++i) {
    const LatLng c{lat(rng), lon(rng)};
    const RedisGeoShape shape =
        i % 2 ? RedisGeoShape::Radius(c, std::pow(10, log_size(rng)))
              : RedisGeoShape::Box(c, std::pow(10, log_size(rng)),
                                   std::pow(10, log_size(rng)));
    const RedisGeoAreas a = ComputeRedisGeoAreas(shape);
    ASSERT_FALSE(a.scans.empty());
    EXPECT_EQ(a.scans[0].cell, a.centre);
    // The centre's own score is in the centre cell's range.
    EXPECT_EQ(RedisGeoScanIndex(a, *RedisGeoScore(c)), 0);
    const uint64_t width = 1ULL << (52 - 2 * a.step);
    for (const RedisGeoScanRange& r : a.scans) {
      EXPECT_EQ(r.cell.step, a.step);
      EXPECT_EQ(r.min_score % width, 0u);
      EXPECT_EQ(r.max_score - r.min_score, width);
    }
    for (size_t x = 0; x < a.scans.size(); ++x) {
      for (size_t y = x + 1; y < a.scans.size(); ++y) {
        EXPECT_NE(a.scans[x].min_score, a.scans[y].min_score);
      }
    }
  }
}

TEST(RedisGeoMatchTest,
     RadiusEdgeIsInclusiveAndMeasuredFromTheDecodedPosition) {
  const LatLng c{48.8566, 2.3522};
  const uint64_t s = Score(Destination(c, 1234.5, 77));
  const double d = HaversineMeters(c, RedisGeoScoreToLatLng(s));
  EXPECT_EQ(RedisGeoMatch(RedisGeoShape::Radius(c, d), s), d);
  EXPECT_FALSE(
      RedisGeoMatch(RedisGeoShape::Radius(c, std::nextafter(d, 0)), s));
  // The same radius in km: Redis compares with radius * 1000.
  EXPECT_EQ(RedisGeoMatch(RedisGeoShape::Radius(c, 1.3, 1000), s), d);
  EXPECT_FALSE(RedisGeoMatch(RedisGeoShape::Radius(c, 1.2, 1000), s));
}

TEST(RedisGeoMatchTest, DecidesOnTheDecodedPositionNotTheAddedOne) {
  // Find an added position inside the radius whose cell centre is outside.
  const LatLng c{-33.8688, 151.2093};
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> bearing(0, 360);
  int found = 0;
  for (int i = 0; i < 1000 && found < 5; ++i) {
    const LatLng added = Destination(c, 100, bearing(rng));
    const uint64_t s = Score(added);
    const double d_added = HaversineMeters(c, added);
    const double d_decoded = HaversineMeters(c, RedisGeoScoreToLatLng(s));
    if (d_decoded <= d_added) continue;
    ++found;
    const double r = (d_added + d_decoded) / 2;  // Added in, decoded out.
    EXPECT_FALSE(RedisGeoMatch(RedisGeoShape::Radius(c, r), s));
  }
  EXPECT_EQ(found, 5);
}

TEST(RedisGeoMatchTest, BoxTestsEachAxisSeparately) {
  // Centre on the member's decoded parallel and meridian, so each axis
  // distance is exactly what Redis measures.
  const uint64_t s = Score({40.0, -74.0});
  const LatLng m = RedisGeoScoreToLatLng(s);
  const LatLng west{m.lat, m.lon - 0.01};   // Member due east of it.
  const LatLng south{m.lat - 0.01, m.lon};  // Member due north of it.
  const double dx = HaversineMeters(m, west);
  const double dy = kEarthRadiusMeters *
                    std::fabs(m.lat * (kPi / 180) - south.lat * (kPi / 180));
  EXPECT_EQ(RedisGeoMatch(RedisGeoShape::Box(west, 2 * dx, 1), s), dx);
  EXPECT_FALSE(RedisGeoMatch(
      RedisGeoShape::Box(west, std::nextafter(2 * dx, 0), 1e7), s));
  EXPECT_TRUE(RedisGeoMatch(RedisGeoShape::Box(south, 1, 2 * dy), s));
  EXPECT_FALSE(RedisGeoMatch(
      RedisGeoShape::Box(south, 1e7, std::nextafter(2 * dy, 0)), s));
  // A corner: farther than both half sizes from the centre, yet inside.
  const LatLng sw{m.lat - 0.01, m.lon - 0.01};
  const double w = 2 * HaversineMeters(m, LatLng{m.lat, sw.lon}) + 2;
  const double h = 2 * dy + 2;
  const std::optional<double> d =
      RedisGeoMatch(RedisGeoShape::Box(sw, w, h), s);
  ASSERT_TRUE(d);
  EXPECT_GT(*d, std::max(w, h) / 2);
  EXPECT_EQ(*d, HaversineMeters(sw, m));
}

TEST(RedisGeoSearchMatchTest, NeedsBothAScannedRangeAndThePredicate) {
  // Redis keeps a member GEOADDed at longitude 180 under a 54-bit score that
  // no range ever covers: a search from the same spot does not find it.
  // (Half the circumference is 20021 km.)
  const uint64_t s = Score({0, 180});
  const RedisGeoShape everything =
      RedisGeoShape::Radius({0, 0}, 20100, /*unit_to_meters=*/1000);
  EXPECT_TRUE(RedisGeoMatch(everything, s));
  EXPECT_FALSE(
      RedisGeoSearchMatch(ComputeRedisGeoAreas(everything), everything, s));
  const uint64_t t = Score({0.5, 0.5});
  const std::optional<RedisGeoAccept> hit =
      RedisGeoSearchMatch(ComputeRedisGeoAreas(everything), everything, t);
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->distance_m, *RedisGeoMatch(everything, t));
  EXPECT_EQ(hit->scan_index,
            RedisGeoScanIndex(ComputeRedisGeoAreas(everything), t));
}

// (b) of the search header: the candidate circle around the centre holds the
// ADDED position of every member Redis's predicate accepts. Members are drawn
// close to each shape's edge, where the claim is tightest.
TEST(RedisGeoCandidateRadiusTest, HoldsEveryAcceptedMembersAddedPosition) {
  std::mt19937_64 rng(4);
  std::uniform_real_distribution<double> unit(0, 1);
  int accepted = 0;
  double min_slack = 1e9;
  for (int q = 0; q < 3000; ++q) {
    // Centres anywhere, including the Mercator limit and the antimeridian.
    LatLng c{(unit(rng) * 2 - 1) * kRedisLatMax, unit(rng) * 360 - 180};
    if (q % 10 == 0) c.lat = (q % 20 ? 1 : -1) * (kRedisLatMax - unit(rng));
    if (q % 10 == 1) c.lon = q % 20 ? 180 - unit(rng) * 0.01 : -180;
    const double size = std::pow(10, unit(rng) * 6.7);  // 1 m .. 5000 km.
    const bool box = q % 2;
    const double w = size, h = std::pow(10, unit(rng) * 6.7);
    const double units[] = {1, 1000, 0.3048, 1609.34};
    const double u = units[q % 4];
    const RedisGeoShape shape = box ? RedisGeoShape::Box(c, w / u, h / u, u)
                                    : RedisGeoShape::Radius(c, size / u, u);
    const double limit = RedisGeoCandidateRadiusMeters(shape);
    for (int i = 0; i < 200; ++i) {
      LatLng p;
      if (box) {
        // Near an edge or a corner of the box.
        const double dx =
            (unit(rng) < 0.5 ? 1 : -1) * (w / 2 + (unit(rng) - 0.5) * 4);
        const double dy = (unit(rng) < 0.5 ? 1 : -1) *
                          (unit(rng) < 0.5 ? h / 2 + (unit(rng) - 0.5) * 4
                                           : unit(rng) * h / 2);
        const LatLng row = Destination(c, std::fabs(dy), dy > 0 ? 0 : 180);
        p = Destination(row, std::fabs(dx), dx > 0 ? 90 : 270);
      } else {
        p = Destination(c, size + (unit(rng) - 0.5) * 4, unit(rng) * 360);
      }
      const std::optional<uint64_t> s = RedisGeoMemberScore(p);
      if (!s || !RedisGeoMatch(shape, *s)) continue;
      ++accepted;
      const double d = HaversineMeters(c, p);
      EXPECT_LE(d, limit) << "q " << q << " box " << box;
      min_slack = std::min(min_slack, limit - d);
    }
  }
  EXPECT_GT(accepted, 100000);
  // Members came within 1 m of the circle: the margin is what was tested.
  EXPECT_LT(min_slack, 1.0);
}

// The box's candidate rectangle holds the ADDED position of every member
// Redis's box predicate accepts, members drawn close to the box's edges and
// corners, boxes anywhere (the Mercator limit, the antimeridian).
TEST(RedisGeoBoxCandidatesTest, HoldsEveryAcceptedMembersAddedPosition) {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> unit(0, 1);
  int accepted = 0, rects = 0;
  for (int q = 0; q < 3000; ++q) {
    LatLng c{(unit(rng) * 2 - 1) * kRedisLatMax, unit(rng) * 360 - 180};
    if (q % 10 == 0) c.lat = (q % 20 ? 1 : -1) * (kRedisLatMax - unit(rng));
    if (q % 10 == 1) c.lon = q % 20 ? 180 - unit(rng) * 0.01 : -180;
    const double w = std::pow(10, unit(rng) * 6.7);  // 1 m .. 5000 km
    const double h = std::pow(10, unit(rng) * 6.7);
    const double units[] = {1, 1000, 0.3048, 1609.34};
    const double u = units[q % 4];
    const RedisGeoShape shape = RedisGeoShape::Box(c, w / u, h / u, u);
    const std::optional<RectRegion> rect = RedisGeoBoxCandidates(shape);
    if (!rect) continue;
    ++rects;
    for (int i = 0; i < 200; ++i) {
      const double dx =
          (unit(rng) < 0.5 ? 1 : -1) * (w / 2 + (unit(rng) - 0.5) * 4);
      const double dy =
          (unit(rng) < 0.5 ? 1 : -1) *
          (unit(rng) < 0.5 ? h / 2 + (unit(rng) - 0.5) * 4 : unit(rng) * h / 2);
      const LatLng row = Destination(c, std::fabs(dy), dy > 0 ? 0 : 180);
      const LatLng p = Destination(row, std::fabs(dx), dx > 0 ? 90 : 270);
      const std::optional<uint64_t> s = RedisGeoMemberScore(p);
      if (!s || !RedisGeoMatch(shape, *s)) continue;
      ++accepted;
      EXPECT_TRUE(rect->Contains(p))
          << "q " << q << " " << p.lat << "," << p.lon;
      if (HasFailure()) return;
    }
  }
  EXPECT_GT(rects, 2000);  // most boxes have a rectangle
  EXPECT_GT(accepted, 100000);
}

RedisGeoResult Result(std::string member, uint64_t score, int scan, double d) {
  return RedisGeoResult{std::move(member), score, scan, d};
}

std::vector<std::string> Names(const std::vector<RedisGeoResult>& r) {
  std::vector<std::string> out;
  for (const auto& x : r) out.push_back(x.member);
  return out;
}

TEST(RedisGeoNaturalLessTest, ScanThenScoreThenMemberBytes) {
  std::vector<RedisGeoResult> r = {
      Result("z", 5, 1, 0),  Result("b", 7, 0, 0),    Result("a", 9, 0, 0),
      Result("ab", 7, 0, 0), Result("\xff", 7, 0, 0), Result("a", 7, 0, 0)};
  std::sort(r.begin(), r.end(), RedisGeoNaturalLess);
  EXPECT_THAT(Names(r), ElementsAre("a", "ab", "b", "\xff", "a", "z"));
}

// Members around one centre, each in a known order of distance.
std::vector<RedisGeoCandidate> Ring(const LatLng& c,
                                    const std::vector<double>& meters) {
  std::vector<RedisGeoCandidate> out;
  for (size_t i = 0; i < meters.size(); ++i) {
    out.push_back(
        {"m" + std::to_string(i), Score(Destination(c, meters[i], 40.0 * i))});
  }
  return out;
}

TEST(RedisGeoSearchTest, SortsCountsAndAnyAsRedisDoes) {
  const LatLng c{52.52, 13.405};
  const std::vector<RedisGeoCandidate> ring =
      Ring(c, {500, 100, 900, 300, 700, 5000});
  const RedisGeoShape shape = RedisGeoShape::Radius(c, 1000);
  std::vector<RedisGeoResult> natural = RedisGeoSearch(shape, ring, {});
  ASSERT_EQ(natural.size(), 5u);  // m5 is outside.
  EXPECT_TRUE(
      std::is_sorted(natural.begin(), natural.end(), RedisGeoNaturalLess));

  EXPECT_THAT(
      Names(RedisGeoSearch(shape, ring, {RedisGeoSort::kAsc, 0, false})),
      ElementsAre("m1", "m3", "m0", "m4", "m2"));
  EXPECT_THAT(
      Names(RedisGeoSearch(shape, ring, {RedisGeoSort::kDesc, 0, false})),
      ElementsAre("m2", "m4", "m0", "m3", "m1"));
  // COUNT alone implies ASC.
  EXPECT_THAT(
      Names(RedisGeoSearch(shape, ring, {RedisGeoSort::kNone, 2, false})),
      ElementsAre("m1", "m3"));
  // ANY takes the first members scanned, then sorts only those.
  const std::vector<std::string> first2 = {natural[0].member,
                                           natural[1].member};
  EXPECT_EQ(Names(RedisGeoSearch(shape, ring, {RedisGeoSort::kNone, 2, true})),
            first2);
  std::vector<RedisGeoResult> any_desc =
      RedisGeoSearch(shape, ring, {RedisGeoSort::kDesc, 2, true});
  ASSERT_EQ(any_desc.size(), 2u);
  EXPECT_GE(any_desc[0].distance_m, any_desc[1].distance_m);
  EXPECT_THAT(Names(any_desc), ::testing::UnorderedElementsAreArray(first2));
}

TEST(RedisGeoSearchTest, EqualDistancesKeepNaturalOrderWhenSorted) {
  // Members at one position: equal distances, ordered by name naturally.
  const LatLng c{35.6895, 139.6917};
  const uint64_t s = Score(Destination(c, 250, 10));
  const std::vector<RedisGeoCandidate> same = {
      {"c", s}, {"a", s}, {"b", s}, {"near", Score(Destination(c, 50, 0))}};
  const RedisGeoShape shape = RedisGeoShape::Radius(c, 300);
  EXPECT_THAT(
      Names(RedisGeoSearch(shape, same, {RedisGeoSort::kAsc, 0, false})),
      ElementsAre("near", "a", "b", "c"));
  EXPECT_THAT(
      Names(RedisGeoSearch(shape, same, {RedisGeoSort::kDesc, 0, false})),
      ElementsAre("a", "b", "c", "near"));
}

TEST(RedisGeoSearchTest, CountCutsASortedPrefixEvenAmongTies) {
  // Many members on a few positions: long runs of equal distances, cut by
  // COUNT (Redis's partial quicksort path, including its n > 40 pivots).
  const LatLng c{-23.5505, -46.6333};
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> unit(0, 1);
  for (int round = 0; round < 50; ++round) {
    std::vector<uint64_t> spots;
    for (int i = 0; i < 6; ++i) {
      spots.push_back(Score(Destination(c, unit(rng) * 900, unit(rng) * 360)));
    }
    std::vector<RedisGeoCandidate> candidates;
    const int n = 10 + round * 3;
    for (int i = 0; i < n; ++i) {
      candidates.push_back({"m" + std::to_string(i), spots[rng() % 6]});
    }
    const RedisGeoShape shape = RedisGeoShape::Radius(c, 1000);
    for (RedisGeoSort sort : {RedisGeoSort::kAsc, RedisGeoSort::kDesc}) {
      const std::vector<RedisGeoResult> full =
          RedisGeoSearch(shape, candidates, {sort, 0, false});
      ASSERT_EQ(full.size(), candidates.size());
      const int64_t count = 1 + rng() % (n - 1);
      const std::vector<RedisGeoResult> cut =
          RedisGeoSearch(shape, candidates, {sort, count, false});
      ASSERT_EQ(cut.size(), static_cast<size_t>(count));
      std::set<std::string> names;
      for (int64_t i = 0; i < count; ++i) {
        EXPECT_EQ(cut[i].distance_m, full[i].distance_m) << i;
        names.insert(cut[i].member);
      }
      EXPECT_EQ(names.size(), cut.size());
    }
  }
}

// Early stop: whenever the inner candidates decide a nearest-COUNT reply,
// it is the reply over all candidates, member for member. Some members
// share positions, so equal distances at and around the cut occur and must
// make the inner ones decline.
TEST(RedisGeoNearestFromInnerTest, EqualsTheFullSearchWhenItDecides) {
  std::mt19937_64 rng(11);
  const LatLng centre{39.9, 116.4};
  std::vector<std::pair<RedisGeoCandidate, LatLng>> members;
  for (int i = 0; i < 3000; ++i) {
    // One in 30 stands where an earlier one stands.
    const LatLng p =
        (i > 0 && rng() % 30 == 0)
            ? members[rng() % members.size()].second
            : Destination(centre,
                          std::uniform_real_distribution<>(0, 3000)(rng),
                          std::uniform_real_distribution<>(0, 360)(rng));
    members.push_back({{absl::StrCat("m", i), Score(p)}, p});
  }
  std::vector<RedisGeoCandidate> all;
  for (const auto& [c, p] : members) all.push_back(c);
  int decided = 0, declined = 0;
  for (int q = 0; q < 400; ++q) {
    const LatLng c = Destination(
        centre, std::uniform_real_distribution<>(0, 2000)(rng), rng() % 360);
    const RedisGeoShape shape =
        q % 2 ? RedisGeoShape::Radius(c, 0.5 + rng() % 3000 / 1000.0, 1000)
              : RedisGeoShape::Box(c, 0.5 + rng() % 4000 / 1000.0,
                                   0.5 + rng() % 4000 / 1000.0, 1000);
    const int64_t count = 1 + rng() % 20;
    const RedisGeoSort sort = q % 3 ? RedisGeoSort::kAsc : RedisGeoSort::kNone;
    const std::vector<RedisGeoResult> full =
        RedisGeoSearch(shape, all, {sort, count, false});
    for (double inner_m : {50.0, 150.0, 400.0, 1000.0}) {
      std::vector<RedisGeoCandidate> inner;
      for (const auto& [m, p] : members) {
        if (HaversineMeters(c, p) <= inner_m) inner.push_back(m);
      }
      const std::optional<std::vector<RedisGeoResult>> early =
          RedisGeoNearestFromInner(shape, inner, inner_m, count);
      if (!early) {
        ++declined;
        continue;
      }
      ++decided;
      ASSERT_EQ(early->size(), full.size()) << q << " " << inner_m;
      for (size_t i = 0; i < full.size(); ++i) {
        EXPECT_EQ((*early)[i].member, full[i].member) << q << " " << i;
        EXPECT_EQ((*early)[i].distance_m, full[i].distance_m);
        EXPECT_EQ((*early)[i].score, full[i].score);
      }
    }
  }
  // Both outcomes happen often enough to be tested.
  EXPECT_GT(decided, 300);
  EXPECT_GT(declined, 300);
  std::printf("decided %d, declined %d\n", decided, declined);
}

TEST(RedisGeoNearestFromInnerTest, DeclinesATieAtTheCut) {
  const LatLng c{39.9, 116.4};
  const LatLng near = Destination(c, 10, 90), twin = near;
  const LatLng far = Destination(c, 20, 90);
  const RedisGeoShape shape = RedisGeoShape::Radius(c, 1000);
  const std::vector<RedisGeoCandidate> inner = {
      {"a", Score(near)}, {"b", Score(twin)}, {"c", Score(far)}};
  EXPECT_FALSE(RedisGeoNearestFromInner(shape, inner, 100, 1));
  auto two = RedisGeoNearestFromInner(shape, inner, 100, 3);
  EXPECT_FALSE(two);  // a and b tie within the reply: their order is Redis's
  // Not enough members close enough to be sure of the nearest 3.
  EXPECT_FALSE(RedisGeoNearestFromInner(shape, inner, 20.5, 3));
  auto one = RedisGeoNearestFromInner(
      shape, {{"a", Score(near)}, {"c", Score(far)}}, 100, 1);
  ASSERT_TRUE(one);
  EXPECT_THAT(*one, ElementsAre(testing::Field(&RedisGeoResult::member, "a")));
}

// Valkey's GEOSEARCH documentation: Sicily BYPOLYGON 5 ... (Valkey 9.0).
std::vector<LatLng> SicilyPolygon() {
  return {{38.05033923003755, 12.41098696654226},
          {38.00616649901906, 15.107936245794182},
          {38.63804787603499, 18.148439288534455},
          {39.50316813110968, 17.80831874257693},
          {38.57719533463012, 12.458468633214036}};
}

std::vector<RedisGeoCandidate> SicilyMembers() {
  return {{"Palermo", Score({38.115556, 13.361389})},
          {"Catania", Score({37.502669, 15.087269})},
          {"edge1", Score({38.788135, 12.758489})},
          {"edge2", Score({38.788135, 17.241510})}};
}

TEST(RedisGeoPolygonTest, AnswersValkeysDocumentedExample) {
  absl::StatusOr<RedisGeoShape> shape = RedisGeoShape::Polygon(SicilyPolygon());
  ASSERT_TRUE(shape.ok()) << shape.status();
  std::vector<RedisGeoResult> unsorted =
      RedisGeoSearch(*shape, SicilyMembers(), {});
  ASSERT_EQ(unsorted.size(), 2u);
  EXPECT_EQ(unsorted[0].member, "Palermo");
  EXPECT_EQ(unsorted[1].member, "edge2");
  // ... ASC WITHCOORD WITHDIST: metres from the vertices' centroid.
  std::vector<RedisGeoResult> asc =
      RedisGeoSearch(*shape, SicilyMembers(), {RedisGeoSort::kAsc, 0, false});
  ASSERT_EQ(asc.size(), 2u);
  EXPECT_EQ(asc[0].member, "Palermo");
  EXPECT_EQ(RedisFormatDistance(asc[0].distance_m, 1), "166482.0159");
  EXPECT_EQ(asc[1].member, "edge2");
  EXPECT_EQ(RedisFormatDistance(asc[1].distance_m, 1), "180861.7725");
  std::vector<RedisGeoResult> desc_one =
      RedisGeoSearch(*shape, SicilyMembers(), {RedisGeoSort::kDesc, 1, false});
  ASSERT_EQ(desc_one.size(), 1u);
  EXPECT_EQ(desc_one[0].member, "edge2");
}

TEST(RedisGeoPolygonTest, CentreIsTheSphericalCentroidCountingEachVertex) {
  // A square around the equator's 0/0: its centroid is 0/0; repeating the
  // first vertex (as a closing vertex) pulls the centroid towards it.
  const std::vector<LatLng> square = {{-1, -1}, {-1, 1}, {1, 1}, {1, -1}};
  absl::StatusOr<RedisGeoShape> open = RedisGeoShape::Polygon(square);
  ASSERT_TRUE(open.ok());
  EXPECT_NEAR(open->centre.lat, 0, 1e-12);
  EXPECT_NEAR(open->centre.lon, 0, 1e-12);
  std::vector<LatLng> closed = square;
  closed.push_back(square[0]);
  absl::StatusOr<RedisGeoShape> shifted = RedisGeoShape::Polygon(closed);
  ASSERT_TRUE(shifted.ok());
  EXPECT_LT(shifted->centre.lat, -0.1);
  EXPECT_LT(shifted->centre.lon, -0.1);
  EXPECT_EQ(shifted->polygon->vertices().size(), 4u);
}

TEST(RedisGeoPolygonTest, RefusesCrossingEdgesAndTooFewVertices) {
  // A bow tie: Valkey's even-odd rule would take it; trackdb's polygons
  // refuse it everywhere.
  EXPECT_FALSE(RedisGeoShape::Polygon({{0, 0}, {1, 1}, {0, 1}, {1, 0}}).ok());
  EXPECT_FALSE(RedisGeoShape::Polygon({{0, 0}, {1, 1}, {0, 0}}).ok());
  // Around the north pole: the centre (88.3 degrees) has no geohash.
  EXPECT_FALSE(RedisGeoShape::Polygon({{80, -120}, {85, 0}, {80, 120}}).ok());
}

// Random polygons (stars around a centre, so simple) and members: a member
// is in the reply iff the polygon contains its decoded position and its
// score is in a scanned range; every member the polygon holds is inside
// the candidate box at its added position.
TEST(RedisGeoPolygonTest, AcceptsExactlyTheDecodedPositionsInside) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> unit(0, 1);
  int inside = 0, outside = 0;
  for (int round = 0; round < 200; ++round) {
    const LatLng c{-60 + 120 * unit(rng), -170 + 340 * unit(rng)};
    const double size_m = std::pow(10, 1 + 4 * unit(rng));
    std::vector<LatLng> star;
    const int n = 3 + static_cast<int>(unit(rng) * 10);
    for (int i = 0; i < n; ++i) {
      star.push_back(Destination(c, size_m * (0.3 + unit(rng)),
                                 360.0 * (i + 0.8 * unit(rng)) / n));
    }
    absl::StatusOr<RedisGeoShape> shape = RedisGeoShape::Polygon(star);
    ASSERT_TRUE(shape.ok()) << shape.status();
    absl::StatusOr<RectRegion> box = RedisGeoPolygonCandidates(*shape);
    ASSERT_TRUE(box.ok());
    const RedisGeoAreas areas = ComputeRedisGeoAreas(*shape);
    std::vector<RedisGeoCandidate> members;
    for (int i = 0; i < 100; ++i) {
      const LatLng p =
          Destination(c, 1.5 * size_m * unit(rng), 360 * unit(rng));
      const std::optional<uint64_t> score = RedisGeoMemberScore(p);
      if (!score) continue;
      members.push_back({absl::StrCat("m", i), *score});
      const LatLng decoded = RedisGeoScoreToLatLng(*score);
      const bool in = shape->polygon->Contains(decoded);
      if (in) EXPECT_TRUE(box->Contains(p));
      const std::optional<RedisGeoAccept> hit =
          RedisGeoSearchMatch(areas, *shape, *score);
      EXPECT_EQ(hit.has_value(), in && RedisGeoScanIndex(areas, *score) >= 0);
      if (hit) {
        EXPECT_EQ(hit->distance_m, HaversineMeters(shape->centre, decoded));
      }
      ++(in ? inside : outside);
    }
    const std::vector<RedisGeoResult> asc =
        RedisGeoSearch(*shape, members, {RedisGeoSort::kAsc, 0, false});
    for (size_t i = 1; i < asc.size(); ++i) {
      EXPECT_LE(asc[i - 1].distance_m, asc[i].distance_m);
    }
  }
  EXPECT_GT(inside, 2000);
  EXPECT_GT(outside, 2000);
}

TEST(RedisGeoWantsNearestTest, CountWithoutAnyNearestFirst) {
  EXPECT_TRUE(RedisGeoWantsNearest({RedisGeoSort::kAsc, 10, false}));
  EXPECT_TRUE(RedisGeoWantsNearest({RedisGeoSort::kNone, 10, false}));
  EXPECT_FALSE(RedisGeoWantsNearest({RedisGeoSort::kDesc, 10, false}));
  EXPECT_FALSE(RedisGeoWantsNearest({RedisGeoSort::kAsc, 10, true}));
  EXPECT_FALSE(RedisGeoWantsNearest({RedisGeoSort::kAsc, 0, false}));
}

}  // namespace
}  // namespace trackdb::index
