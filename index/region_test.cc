#include "index/region.h"

#include <algorithm>
#include <cmath>
#include <random>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "index/distance.h"

namespace trackdb::index {
namespace {

using ::testing::HasSubstr;

TEST(RectRegionTest, ContainsEdgesAndInterior) {
  auto r = RectRegion::Create(10, 20, 30, 40);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->Contains({20, 30}));
  EXPECT_TRUE(r->Contains({10, 20}));
  EXPECT_TRUE(r->Contains({30, 40}));
  EXPECT_FALSE(r->Contains({30.0000001, 30}));
  EXPECT_FALSE(r->Contains({20, 19.9999999}));
}

TEST(RectRegionTest, WestGreaterThanEastCrossesTheAntimeridian) {
  auto r = RectRegion::Create(-10, 170, 10, -170);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->Contains({0, 175}));
  EXPECT_TRUE(r->Contains({0, -175}));
  EXPECT_TRUE(r->Contains({0, 180}));
  EXPECT_TRUE(r->Contains({0, -180}));
  EXPECT_FALSE(r->Contains({0, 0}));
  EXPECT_FALSE(r->Contains({0, 169}));
}

TEST(RectRegionTest, PlusAndMinus180AreOneMeridian) {
  auto r = RectRegion::Create(0, 170, 10, 180);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->Contains({5, -180}));
  auto l = RectRegion::Create(0, -180, 10, -170);
  ASSERT_TRUE(l.ok());
  EXPECT_TRUE(l->Contains({5, 180}));
}

TEST(RectRegionTest, RejectsBadCorners) {
  EXPECT_THAT(RectRegion::Create(20, 0, 10, 1).status().message(),
              HasSubstr("south_west.latitude"));
  EXPECT_THAT(RectRegion::Create(-91, 0, 10, 1).status().message(),
              HasSubstr("south_west.latitude"));
  EXPECT_THAT(RectRegion::Create(0, 0, 10, 181).status().message(),
              HasSubstr("north_east.longitude"));
  EXPECT_THAT(RectRegion::Create(0, NAN, 10, 1).status().message(),
              HasSubstr("south_west.longitude"));
}

TEST(CircleRegionTest, UsesRedisHaversine) {
  const LatLng centre{38.115556, 13.361389};
  auto c = CircleRegion::Create(centre, 1000);
  ASSERT_TRUE(c.ok());
  const LatLng near{38.115556 + 0.0089, 13.361389};  // ~990 m north
  const LatLng far{38.115556 + 0.0091, 13.361389};   // ~1012 m north
  EXPECT_LT(HaversineMeters(centre, near), 1000);
  EXPECT_TRUE(c->Contains(near));
  EXPECT_FALSE(c->Contains(far));
}

// Contains decides most points by bounds without trigonometry: it must
// agree with the haversine everywhere, including right at the radius, near
// the poles and across the antimeridian.
TEST(CircleRegionTest, AgreesWithTheHaversineEverywhere) {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(-1, 1);
  int inside = 0, compared = 0;
  for (int c = 0; c < 300; ++c) {
    const LatLng centre{u(rng) * 89.9, u(rng) * 180};
    const double radius =
        std::pow(10, 1 + 5 * (u(rng) + 1) / 2);  // 10 m-1000 km
    auto circle = CircleRegion::Create(centre, radius);
    ASSERT_TRUE(circle.ok());
    // Degrees spanning about 1.5 radii, wider in longitude near the poles.
    const double dlat = 1.5 * radius / 111195;
    const double dlon = std::min(
        180.0, dlat / std::max(0.01, std::cos(centre.lat * M_PI / 180)));
    for (int i = 0; i < 2000; ++i) {
      LatLng p{std::clamp(centre.lat + u(rng) * dlat, -90.0, 90.0),
               centre.lon + u(rng) * dlon};
      if (p.lon > 180) p.lon -= 360;
      if (p.lon < -180) p.lon += 360;
      const bool exact = HaversineMeters(centre, p) <= radius;
      ASSERT_EQ(circle->Contains(p), exact)
          << centre.lat << "," << centre.lon << " r=" << radius
          << " p=" << p.lat << "," << p.lon;
      inside += exact;
      ++compared;
    }
  }
  // Both sides of the boundary are well represented.
  EXPECT_GT(inside, compared / 5);
  EXPECT_LT(inside, compared * 4 / 5);
}

// Points at the radius itself, to the last bit: on the boundary the bounds
// must leave the verdict to the exact test.
TEST(CircleRegionTest, AgreesWithTheHaversineAtTheRadius) {
  const LatLng centre{39.9, 116.4};
  std::mt19937_64 rng(6);
  std::uniform_real_distribution<double> bearing(0, 2 * M_PI);
  for (int i = 0; i < 20000; ++i) {
    const double b = bearing(rng);
    const LatLng p{centre.lat + 0.0018 * std::cos(b),
                   centre.lon + 0.0023 * std::sin(b)};
    // A circle through p, and ones a hair smaller and larger.
    const double d = HaversineMeters(centre, p);
    for (double r : {d, std::nextafter(d, 0.0), std::nextafter(d, 1e9)}) {
      auto circle = CircleRegion::Create(centre, r);
      ASSERT_TRUE(circle.ok());
      ASSERT_EQ(circle->Contains(p), d <= r) << i;
    }
  }
}

TEST(CircleRegionTest, CoversThePoleFromAnyLongitude) {
  auto c = CircleRegion::Create({89.999, 0}, 500);
  ASSERT_TRUE(c.ok());
  EXPECT_TRUE(c->Contains({90, 123}));
  EXPECT_TRUE(c->Contains({89.9995, -179}));
}

TEST(CircleRegionTest, RejectsBadRadius) {
  EXPECT_TRUE(CircleRegion::Create({0, 0}, 0).ok());  // just the centre
  EXPECT_TRUE(CircleRegion::Create({0, 0}, 0)->Contains({0, 0}));
  EXPECT_FALSE(CircleRegion::Create({0, 0}, 0)->Contains({0, 1e-9}));
  EXPECT_FALSE(CircleRegion::Create({0, 0}, -5).ok());
  EXPECT_FALSE(CircleRegion::Create({0, 0}, INFINITY).ok());
  EXPECT_THAT(CircleRegion::Create({95, 0}, 5).status().message(),
              HasSubstr("centre.latitude"));
}

TEST(PolygonRegionTest, ConcavePolygon) {
  // A "C" shape open to the east.
  auto p = PolygonRegion::Create(
      {{0, 0}, {0, 3}, {1, 3}, {1, 1}, {2, 1}, {2, 3}, {3, 3}, {3, 0}});
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(p->Contains({0.5, 0.5}));
  EXPECT_TRUE(p->Contains({2.5, 2.5}));
  EXPECT_FALSE(p->Contains({1.5, 2}));  // in the notch
  EXPECT_TRUE(p->Contains({1.5, 1}));   // on the notch's edge
  EXPECT_TRUE(p->Contains({0, 0}));     // a vertex
  EXPECT_FALSE(p->Contains({-0.1, 1}));
}

TEST(PolygonRegionTest, BoundaryAndWhatMeetsIt) {
  auto p = PolygonRegion::Create(
      {{0, 0}, {0, 3}, {1, 3}, {1, 1}, {2, 1}, {2, 3}, {3, 3}, {3, 0}});
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(p->OnBoundary({1.5, 1}));
  EXPECT_TRUE(p->OnBoundary({3, 0}));
  EXPECT_FALSE(p->OnBoundary({0.5, 0.5}));  // inside, not on an edge
  EXPECT_FALSE(p->OnBoundary({1.5, 2}));    // in the notch
  // Through the notch's mouth without touching the "C", then into it.
  EXPECT_FALSE(p->BoundaryMeets({1.5, 2}, {1.5, 4}));
  EXPECT_TRUE(p->BoundaryMeets({1.5, 2}, {1.5, 0.5}));
  EXPECT_TRUE(p->BoundaryMeets({-1, -1}, {0, 0}));  // ends on a vertex
  EXPECT_FALSE(p->BoundaryMeets({-1, -1}, {-0.5, 5}));
}

TEST(PolygonRegionTest, AcceptsClosedRing) {
  auto p = PolygonRegion::Create({{0, 0}, {0, 1}, {1, 1}, {0, 0}});
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(p->Contains({0.2, 0.5}));
}

TEST(PolygonRegionTest, RejectsTooFewVertices) {
  EXPECT_THAT(PolygonRegion::Create({{0, 0}, {1, 1}}).status().message(),
              HasSubstr("at least 3"));
  EXPECT_THAT(
      PolygonRegion::Create({{0, 0}, {1, 1}, {0, 0}}).status().message(),
      HasSubstr("at least 3"));
}

TEST(PolygonRegionTest, RejectsSelfIntersection) {
  // A bow tie: edges 0 and 2 cross.
  auto bowtie = PolygonRegion::Create({{0, 0}, {1, 1}, {0, 1}, {1, 0}});
  EXPECT_THAT(bowtie.status().message(), HasSubstr("self-intersecting"));
  // A vertex touching a non-adjacent edge.
  auto touch =
      PolygonRegion::Create({{0, 0}, {0, 4}, {4, 4}, {2, 2}, {4, 0}, {0, 2}});
  EXPECT_THAT(touch.status().message(), HasSubstr("self-intersecting"));
  // An edge that doubles back over the previous one.
  auto spike = PolygonRegion::Create({{0, 0}, {0, 2}, {0, 1}, {1, 1}});
  EXPECT_THAT(spike.status().message(), HasSubstr("self-intersecting"));
}

TEST(PolygonRegionTest, RejectsBadVertexNamingIt) {
  EXPECT_THAT(
      PolygonRegion::Create({{0, 0}, {0, 1}, {91, 1}}).status().message(),
      HasSubstr("vertices[2].latitude"));
}

}  // namespace
}  // namespace trackdb::index
