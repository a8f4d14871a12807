#include "fence/shape.h"

#include "fence/fence_test_util.h"
#include "gtest/gtest.h"
#include "index/distance.h"

namespace trackdb::fence {
namespace {

FenceShape Shape(const v1::Fence& proto) {
  auto shape = FenceShape::FromProto(proto, model::Limits());
  EXPECT_TRUE(shape.ok()) << shape.status();
  return *std::move(shape);
}

TEST(FenceShapeTest, CircleIsGeosearchsDisc) {
  const FenceShape c = Shape(testing::CircleFence(40, 116, 500));
  EXPECT_TRUE(c.Contains({40, 116}));
  EXPECT_TRUE(c.Contains({40.0044, 116}));
  EXPECT_FALSE(c.Contains({40.0046, 116}));
  // A path that passes 300 m east of the centre meets it; 700 m does not.
  const double east_300 = 116 + 300 / (111226.3 * std::cos(40 * M_PI / 180));
  const double east_700 = 116 + 700 / (111226.3 * std::cos(40 * M_PI / 180));
  EXPECT_TRUE(c.PathMeets({39.99, east_300}, {40.01, east_300}));
  EXPECT_FALSE(c.PathMeets({39.99, east_700}, {40.01, east_700}));
  EXPECT_FALSE(c.PathMeets({40.01, 116}, {40.02, 116}));  // short of it
}

TEST(FenceShapeTest, PolygonHoleCutsTheAreaButNotItsEdge) {
  const FenceShape p = Shape(testing::PolygonFence(
      {{{0, 0}, {0, 4}, {4, 4}, {4, 0}}, {{1, 1}, {1, 3}, {3, 3}, {3, 1}}}));
  EXPECT_TRUE(p.Contains({0.5, 0.5}));
  EXPECT_FALSE(p.Contains({2, 2}));  // in the hole
  EXPECT_TRUE(p.Contains({1, 2}));   // on the hole's edge
  EXPECT_FALSE(p.Contains({5, 5}));
  // Within the hole: meets nothing. From the hole out: meets the ring.
  EXPECT_FALSE(p.PathMeets({1.5, 1.5}, {2.5, 2.5}));
  EXPECT_TRUE(p.PathMeets({2, 2}, {5, 2}));
  // Past a corner of the outer ring without touching it.
  EXPECT_FALSE(p.PathMeets({3, 5}, {5, 3.9}));
  EXPECT_TRUE(p.PathMeets({3, 5}, {5, 2}));  // cuts the corner
}

TEST(FenceShapeTest, AHoleOutsideTheOuterRingCutsNothingThere) {
  // A hole that sticks out of the east side of a 4 x 4 square.
  const FenceShape p = Shape(testing::PolygonFence(
      {{{0, 0}, {0, 4}, {4, 4}, {4, 0}}, {{1, 3}, {1, 6}, {3, 6}, {3, 3}}}));
  EXPECT_TRUE(p.Contains({2, 2}));
  EXPECT_FALSE(p.Contains({2, 3.5}));  // in the hole, inside the square
  EXPECT_FALSE(p.Contains({2, 5}));    // in the hole, beyond the square
  EXPECT_TRUE(p.Contains({1, 3.5}));   // the hole's edge, inside the square
  // Across the hole's edges beyond the square only: not the fence.
  EXPECT_FALSE(p.PathMeets({0.5, 5}, {3.5, 5}));
  // Into the hole from the east, across the square's edge within the hole
  // (not the fence either), then out over the hole's edge inside it.
  EXPECT_FALSE(p.PathMeets({2, 7}, {2, 3.5}));
  EXPECT_TRUE(p.PathMeets({2, 7}, {2, 2.5}));
  EXPECT_TRUE(p.PathMeets({0.5, 5}, {0.5, 3}));  // enters the square
}

TEST(FenceShapeTest, RectAcrossTheAntimeridian) {
  const FenceShape r = Shape(testing::RectFence(-1, 179, 1, -179));
  EXPECT_TRUE(r.Contains({0, 180}));
  EXPECT_TRUE(r.Contains({0, -179.5}));
  EXPECT_FALSE(r.Contains({0, 178}));
  // West of it to east of it, the short way across the antimeridian.
  EXPECT_TRUE(r.PathMeets({0, 178}, {0, -178}));
  // The same ends north of it: no.
  EXPECT_FALSE(r.PathMeets({2, 178}, {2, -178}));
  // A rect that does not cross it, met by a path that does.
  const FenceShape east = Shape(testing::RectFence(-1, -179.5, 1, -179));
  EXPECT_TRUE(east.PathMeets({0, 179}, {0, -178}));
  EXPECT_FALSE(east.PathMeets({0, 179}, {0, 178}));
}

}  // namespace
}  // namespace trackdb::fence
