// Property tests: for random regions, every point the region contains has its
// index key inside the covering (no false negatives), checked against brute
// force over random points, boundary points, poles and the antimeridian; and
// the covering stays short and reasonably tight (few false positives).
#include "index/covering.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>

#include "gtest/gtest.h"
#include "index/distance.h"
#include "index/interpolate.h"
#include "index/region.h"
#include "s2/s2cap.h"
#include "s2/s2cell_id.h"

namespace trackdb::index {
namespace {

bool Covered(const std::vector<CellRange>& ranges, uint64_t id) {
  auto it = std::upper_bound(
      ranges.begin(), ranges.end(), id,
      [](uint64_t v, const CellRange& r) { return v < r.first; });
  return it != ranges.begin() && id <= std::prev(it)->last;
}

double NormLon(double lon) {
  while (lon > 180) lon -= 360;
  while (lon < -180) lon += 360;
  return lon;
}

class CoveringPropertyTest : public ::testing::Test {
 protected:
  std::mt19937_64 rng_{20261121};

  double Uniform(double lo, double hi) {
    return std::uniform_real_distribution<double>(lo, hi)(rng_);
  }
  LatLng UniformOnSphere() {
    return {std::asin(Uniform(-1, 1)) * 180 / M_PI, Uniform(-180, 180)};
  }
  // Centres biased towards the hard places: poles and the antimeridian.
  LatLng HardCentre() {
    switch (rng_() % 4) {
      case 0:
        return {Uniform(85, 90) * (rng_() % 2 ? 1 : -1), Uniform(-180, 180)};
      case 1:
        return {Uniform(-80, 80), (rng_() % 2 ? 1 : -1) * Uniform(179, 180)};
      default:
        return UniformOnSphere();
    }
  }

  // Checks no false negatives for `points`; returns how many are contained.
  int CheckNoFalseNegatives(const Region& region,
                            const std::vector<CellRange>& ranges,
                            const std::vector<LatLng>& points) {
    int contained = 0;
    for (const LatLng& p : points) {
      if (!region.Contains(p)) continue;
      ++contained;
      EXPECT_TRUE(Covered(ranges, CellIdOf(p)))
          << "missed point " << p.lat << "," << p.lon;
    }
    return contained;
  }

  void CheckWellFormed(const std::vector<CellRange>& ranges) {
    ASSERT_FALSE(ranges.empty());
    EXPECT_LE(ranges.size(), 12u);
    for (size_t i = 0; i < ranges.size(); ++i) {
      EXPECT_LE(ranges[i].first, ranges[i].last);
      if (i > 0) EXPECT_GT(ranges[i].first, ranges[i - 1].last + 2);
    }
  }
};

TEST_F(CoveringPropertyTest, CirclesHaveNoFalseNegatives) {
  int total_contained = 0;
  for (int iter = 0; iter < 300; ++iter) {
    const LatLng centre = HardCentre();
    const double radius = std::pow(10, Uniform(0, 6.5));  // 1 m .. 3000 km
    auto circle = CircleRegion::Create(centre, radius);
    ASSERT_TRUE(circle.ok());
    const auto ranges = Covering(*circle);
    CheckWellFormed(ranges);

    std::vector<LatLng> points;
    for (int i = 0; i < 200; ++i) {
      // On, just inside and just outside the boundary, and in the interior.
      const double bearing = Uniform(0, 360);
      const double f = (i % 4 == 0)   ? 1.0
                       : (i % 4 == 1) ? 1 - 1e-12
                       : (i % 4 == 2) ? 1 + 1e-12
                                      : Uniform(0, 1);
      points.push_back(Destination(centre, radius * f, bearing));
    }
    points.push_back(centre);
    points.push_back({90, Uniform(-180, 180)});
    points.push_back({-90, Uniform(-180, 180)});
    total_contained += CheckNoFalseNegatives(*circle, ranges, points);
  }
  EXPECT_GT(total_contained, 300 * 100);  // the test exercised real hits
}

TEST_F(CoveringPropertyTest, RectsHaveNoFalseNegatives) {
  for (int iter = 0; iter < 300; ++iter) {
    const LatLng a = HardCentre();
    const double height = std::pow(10, Uniform(-5, 1.5));
    const double width = std::pow(10, Uniform(-5, 2.3));
    const double south = std::max(-90.0, a.lat - height / 2);
    const double north = std::min(90.0, a.lat + height / 2);
    // Longitudes may wrap: then west > east and the rect crosses +/-180.
    const double west = NormLon(a.lon - width / 2);
    const double east = NormLon(a.lon + width / 2);
    auto rect = RectRegion::Create(south, west, north, east);
    ASSERT_TRUE(rect.ok());
    const auto ranges = Covering(*rect);
    CheckWellFormed(ranges);

    std::vector<LatLng> points;
    const double lats[] = {south, north, (south + north) / 2};
    const double lons[] = {west, east, a.lon, -180, 180};
    for (double lat : lats) {
      for (double lon : lons) points.push_back({lat, lon});
    }
    for (int i = 0; i < 200; ++i) {
      points.push_back(
          {Uniform(south, north),
           NormLon(a.lon + Uniform(-width / 2 * 1.1, width / 2 * 1.1))});
    }
    const int contained = CheckNoFalseNegatives(*rect, ranges, points);
    EXPECT_GT(contained, 0);
  }
}

TEST_F(CoveringPropertyTest, PolygonsHaveNoFalseNegatives) {
  for (int iter = 0; iter < 200; ++iter) {
    // A random star-shaped (so simple) polygon around a centre.
    LatLng c = UniformOnSphere();
    c.lat = std::clamp(c.lat, -80.0, 80.0);
    c.lon = std::clamp(c.lon, -170.0, 170.0);
    const double size = std::pow(10, Uniform(-4, 0.7));
    const int n = 3 + rng_() % 12;
    std::vector<double> angles;
    for (int i = 0; i < n; ++i) angles.push_back(Uniform(0, 2 * M_PI));
    std::sort(angles.begin(), angles.end());
    std::vector<LatLng> vertices;
    for (double t : angles) {
      const double r = size * Uniform(0.2, 1);
      vertices.push_back({c.lat + r * std::sin(t), c.lon + r * std::cos(t)});
    }
    auto polygon = PolygonRegion::Create(vertices);
    if (!polygon.ok()) continue;  // rare degenerate draw (collinear edges)
    const auto ranges = Covering(*polygon);
    CheckWellFormed(ranges);
    std::vector<LatLng> points = vertices;
    for (size_t i = 0; i < vertices.size(); ++i) {
      const LatLng& a = vertices[i];
      const LatLng& b = vertices[(i + 1) % vertices.size()];
      points.push_back({(a.lat + b.lat) / 2, (a.lon + b.lon) / 2});
    }
    for (int i = 0; i < 200; ++i) {
      points.push_back(
          {c.lat + Uniform(-size, size), c.lon + Uniform(-size, size)});
    }
    EXPECT_GT(CheckNoFalseNegatives(*polygon, ranges, points), 0);
  }
}

TEST_F(CoveringPropertyTest, WholeWorldAndPolarRegions) {
  auto world = RectRegion::Create(-90, -180, 90, 180);
  ASSERT_TRUE(world.ok());
  const auto ranges = Covering(*world);
  for (int i = 0; i < 2000; ++i) {
    EXPECT_TRUE(Covered(ranges, CellIdOf(UniformOnSphere())));
  }
  EXPECT_TRUE(Covered(ranges, CellIdOf({90, 0})));
  EXPECT_TRUE(Covered(ranges, CellIdOf({-90, 180})));

  auto cap = RectRegion::Create(89.9, -180, 90, 180);
  ASSERT_TRUE(cap.ok());
  const auto polar = Covering(*cap);
  EXPECT_TRUE(Covered(polar, CellIdOf({90, 45})));
  EXPECT_TRUE(Covered(polar, CellIdOf({89.95, -179.9})));
  EXPECT_FALSE(Covered(polar, CellIdOf({0, 0})));
}

// A rect whose both longitudes name the antimeridian (west 180 and east
// -180, or both -180) is the antimeridian itself: Contains() accepts points
// on it, so the covering must hold them (S1 reads the pair as its empty
// interval unless the bound says otherwise).
TEST_F(CoveringPropertyTest, RectOnTheAntimeridianCoversIt) {
  for (auto [west, east] : {std::pair{180.0, -180.0}, std::pair{-180.0, -180.0},
                            std::pair{180.0, 180.0}}) {
    auto rect = RectRegion::Create(-20, west, 60, east);
    ASSERT_TRUE(rect.ok());
    const auto ranges = Covering(*rect);
    CheckWellFormed(ranges);
    for (const LatLng p : {LatLng{10, 180}, LatLng{10, -180}, LatLng{-20, 180},
                           LatLng{60, -180}}) {
      ASSERT_TRUE(rect->Contains(p));
      EXPECT_TRUE(Covered(ranges, CellIdOf(p)))
          << west << "," << east << ": " << p.lat << "," << p.lon;
    }
    EXPECT_FALSE(Covered(ranges, CellIdOf({10, 0})));
  }
}

// A rect from west 5e-324 to east 0 wraps nearly the whole way round
// (Contains accepts every longitude but the sliver between), though both
// ends are 0 in radians: its covering must not shrink to one meridian.
TEST_F(CoveringPropertyTest, RectWrappingPastRadianPrecisionCoversTheWorld) {
  auto rect = RectRegion::Create(-18.5, 5e-324, -18, 0);
  ASSERT_TRUE(rect.ok());
  const auto ranges = Covering(*rect);
  CheckWellFormed(ranges);
  for (double lon : {-179.0, -90.0, 0.0, 90.0, 180.0}) {
    ASSERT_TRUE(rect->Contains({-18.25, lon}));
    EXPECT_TRUE(Covered(ranges, CellIdOf({-18.25, lon}))) << lon;
  }
}

// A rect's corner a few centimetres from the pole: there a point's
// longitude, after S2's xyz rounding, moves by far more than the 1 cm
// margin in angle (the error grows as 1/cos(lat)), so the bound must be
// widened by a distance on the sphere, not by an angle in longitude
// (found by index_fuzz: south -71.0151, west 5e-304, north 89.99999966,
// east 179.99999933).
TEST_F(CoveringPropertyTest, RectCornerNearThePoleIsCovered) {
  const double north = 89.99999966472387, east = 179.99999932944775;
  for (int max_cells : {1, 8, 31}) {
    auto rect = RectRegion::Create(-71.01510598813536, 5.467670515831841e-304,
                                   north, east);
    ASSERT_TRUE(rect.ok());
    const auto ranges = Covering(*rect, CoveringOptions{max_cells});
    CheckWellFormed(ranges);
    for (const LatLng p : {LatLng{north, east}, LatLng{north, 179.9},
                           LatLng{north, 90}, LatLng{-71.0151, east}}) {
      ASSERT_TRUE(rect->Contains(p));
      EXPECT_TRUE(Covered(ranges, CellIdOf(p)))
          << max_cells << " cells: " << p.lat << "," << p.lon;
    }
  }
}

// Few false positives: of the points the covering admits near a circle, a
// good share must really be inside, so storage filters little.
TEST_F(CoveringPropertyTest, CirclesAreCoveredTightly) {
  double worst = 1;
  for (int iter = 0; iter < 100; ++iter) {
    const LatLng centre = UniformOnSphere();
    const double radius = std::pow(10, Uniform(1.5, 5));  // 30 m .. 100 km
    auto circle = CircleRegion::Create(centre, radius);
    ASSERT_TRUE(circle.ok());
    const auto ranges = Covering(*circle);
    int covered = 0, contained = 0;
    for (int i = 0; i < 4000; ++i) {
      // Uniform in area over a disc of 3x the radius.
      const double bearing = Uniform(0, 360);
      const LatLng p =
          Destination(centre, 3 * radius * std::sqrt(Uniform(0, 1)), bearing);
      if (Covered(ranges, CellIdOf(p))) {
        ++covered;
        contained += circle->Contains(p);
      }
    }
    ASSERT_GT(covered, 0);
    worst = std::min(worst, static_cast<double>(contained) / covered);
  }
  // Measured worst precision over these 100 circles: see the log line.
  std::printf("worst covering precision: %.3f\n", worst);
  EXPECT_GT(worst, 0.25);
}

// The fast covering of small circles: wherever it applies, no point the
// circle contains is missed (on the boundary, just inside, near cube face
// edges and corners, near the antimeridian), and it stays within
// max_ranges. It must apply to most small circles, or Covering() would
// still pay for S2RegionCoverer.
TEST_F(CoveringPropertyTest, SmallCapCoveringMissesNothing) {
  int applied = 0, contained = 0;
  const int kCircles = 2000;
  for (int iter = 0; iter < kCircles; ++iter) {
    LatLng centre = UniformOnSphere();
    switch (iter % 4) {
      case 0:  // near an equatorial face edge (longitude 45 + 90k)
        centre = {Uniform(-40, 40),
                  NormLon(45 + 90 * (rng_() % 4) + Uniform(-0.02, 0.02))};
        break;
      case 1:  // near a polar face edge (|z| = |x| or |y|)
        centre = {(rng_() % 2 ? 1 : -1) * (45 + Uniform(-0.02, 0.02)),
                  90.0 * (rng_() % 4) - 180};
        break;
      case 2:  // near the antimeridian
        centre = {Uniform(-60, 60),
                  (rng_() % 2 ? 1 : -1) * Uniform(179.9, 180)};
        break;
      default:
        break;
    }
    const double radius = std::pow(10, Uniform(0, 3.3));  // 1 m .. 2 km
    auto circle = CircleRegion::Create(centre, radius);
    ASSERT_TRUE(circle.ok());
    const std::unique_ptr<S2Region> bound = circle->SphericalBound();
    const std::optional<std::vector<CellRange>> ranges =
        SmallCapCovering(*static_cast<const S2Cap*>(bound.get()), 12);
    if (!ranges) continue;
    ++applied;
    CheckWellFormed(*ranges);
    std::vector<LatLng> points;
    for (int i = 0; i < 100; ++i) {
      const double f = (i % 4 == 0)   ? 1.0
                       : (i % 4 == 1) ? 1 - 1e-12
                       : (i % 4 == 2) ? 1 + 1e-12
                                      : Uniform(0, 1);
      points.push_back(Destination(centre, radius * f, Uniform(0, 360)));
    }
    points.push_back(centre);
    contained += CheckNoFalseNegatives(*circle, *ranges, points);
    if (HasFailure()) return;
  }
  std::printf("fast covering applied to %d of %d small circles\n", applied,
              kCircles);
  EXPECT_GT(applied, kCircles / 2);
  EXPECT_GT(contained, applied * 50);
}

// The same for small rectangles: corners, edges and inside, of rectangles
// from 1 m to 4 km a side, near face edges and the antimeridian.
TEST_F(CoveringPropertyTest, SmallLatLngRectCoveringMissesNothing) {
  int applied = 0, contained = 0;
  const int kRects = 2000;
  for (int iter = 0; iter < kRects; ++iter) {
    LatLng centre = UniformOnSphere();
    switch (iter % 4) {
      case 0:
        centre = {Uniform(-40, 40),
                  NormLon(45 + 90 * (rng_() % 4) + Uniform(-0.02, 0.02))};
        break;
      case 1:
        centre = {(rng_() % 2 ? 1 : -1) * (45 + Uniform(-0.02, 0.02)),
                  90.0 * (rng_() % 4) - 180};
        break;
      case 2:
        centre = {Uniform(-60, 60),
                  (rng_() % 2 ? 1 : -1) * Uniform(179.9, 180)};
        break;
      default:
        break;
    }
    const double half_h = std::pow(10, Uniform(0, 3.3)) / 2;  // metres
    const double half_w = std::pow(10, Uniform(0, 3.3)) / 2;
    const double dlat = half_h / kEarthRadiusMeters * 180 / M_PI;
    const double dlon = half_w / kEarthRadiusMeters * 180 / M_PI /
                        std::cos(centre.lat * M_PI / 180);
    if (std::abs(centre.lat) + dlat >= 90 || dlon >= 180) continue;
    auto rect =
        RectRegion::Create(centre.lat - dlat, NormLon(centre.lon - dlon),
                           centre.lat + dlat, NormLon(centre.lon + dlon));
    ASSERT_TRUE(rect.ok());
    const std::unique_ptr<S2Region> bound = rect->SphericalBound();
    const std::optional<std::vector<CellRange>> ranges =
        SmallLatLngRectCovering(*static_cast<const S2LatLngRect*>(bound.get()),
                                12);
    if (!ranges) continue;
    ++applied;
    CheckWellFormed(*ranges);
    std::vector<LatLng> points;
    for (int i = 0; i < 100; ++i) {
      // Corners and edges (fractions -1 and 1), and inside.
      const double fy = i % 3 == 0 ? (i % 2 ? 1 : -1) : Uniform(-1, 1);
      const double fx = i % 3 == 1 ? (i % 2 ? 1 : -1) : Uniform(-1, 1);
      points.push_back(
          {centre.lat + fy * dlat, NormLon(centre.lon + fx * dlon)});
    }
    contained += CheckNoFalseNegatives(*rect, *ranges, points);
    if (HasFailure()) return;
  }
  std::printf("fast covering applied to %d of %d small rectangles\n", applied,
              kRects);
  EXPECT_GT(applied, kRects / 2);
  EXPECT_GT(contained, applied * 50);
}

TEST_F(CoveringPropertyTest, CoarsenedCoveringsHoldEveryContainedPointsCell) {
  int contained = 0;
  for (int iter = 0; iter < 300; ++iter) {
    const int level = static_cast<int>(rng_() % 31);
    const LatLng centre = HardCentre();
    const double radius = std::pow(10, Uniform(0, 6.5));
    auto circle = CircleRegion::Create(centre, radius);
    ASSERT_TRUE(circle.ok());
    const std::vector<CellRange> coarse =
        CoarsenCovering(Covering(*circle), level);
    ASSERT_FALSE(coarse.empty());
    for (size_t i = 0; i < coarse.size(); ++i) {
      EXPECT_EQ(S2CellId(coarse[i].first).level(), level);
      EXPECT_EQ(S2CellId(coarse[i].last).level(), level);
      // Disjoint, sorted, and not adjacent (adjacent ones are joined).
      if (i > 0) {
        EXPECT_GT(coarse[i].first, S2CellId(coarse[i - 1].last).next().id());
      }
    }
    for (int i = 0; i < 100; ++i) {
      const LatLng p =
          Destination(centre, radius * Uniform(0, 1), Uniform(0, 360));
      if (!circle->Contains(p)) continue;
      ++contained;
      const uint64_t cell = CellIdAtLevel(p, level);
      EXPECT_EQ(cell, S2CellId(CellIdOf(p)).parent(level).id());
      EXPECT_TRUE(Covered(coarse, cell))
          << "level " << level << " missed " << p.lat << "," << p.lon;
    }
  }
  EXPECT_GT(contained, 300 * 50);
}

TEST(CellIdOfTest, IsALeafCellContainingThePoint) {
  const S2CellId id(CellIdOf({38.115556, 13.361389}));
  EXPECT_TRUE(id.is_valid());
  EXPECT_TRUE(id.is_leaf());
  EXPECT_EQ(CellIdOf({90, 0}), CellIdOf({90, 0}));
  EXPECT_NE(CellIdOf({0, 179.9999}), CellIdOf({0, -179.9999}));
}

}  // namespace
}  // namespace trackdb::index
