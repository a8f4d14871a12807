#include "index/planar.h"

#include "gtest/gtest.h"

namespace trackdb::index {
namespace {

TEST(PlanarTest, OrientationSaysWhichSide) {
  EXPECT_GT(Orientation({0, 0}, {0, 1}, {1, 0}), 0);  // lat up is left of east
  EXPECT_LT(Orientation({0, 0}, {0, 1}, {-1, 0}), 0);
  EXPECT_EQ(Orientation({0, 0}, {0, 1}, {0, 5}), 0);
}

TEST(PlanarTest, OnSegmentIncludesEndsOnly) {
  EXPECT_TRUE(OnSegment({0, 0}, {0, 0}, {0, 2}));
  EXPECT_TRUE(OnSegment({0, 1}, {0, 0}, {0, 2}));
  EXPECT_FALSE(OnSegment({0, 3}, {0, 0}, {0, 2}));  // collinear, beyond
  EXPECT_FALSE(OnSegment({1, 1}, {0, 0}, {0, 2}));
}

TEST(PlanarTest, SegmentsIntersectCrossingTouchingAndApart) {
  EXPECT_TRUE(SegmentsIntersect({-1, 0}, {1, 0}, {0, -1}, {0, 1}));  // cross
  EXPECT_TRUE(SegmentsIntersect({0, 0}, {1, 1}, {1, 1}, {2, 0}));    // an end
  EXPECT_TRUE(SegmentsIntersect({0, 0}, {0, 2}, {0, 1}, {0, 3}));    // overlap
  EXPECT_FALSE(SegmentsIntersect({0, 0}, {0, 1}, {0, 2}, {0, 3}));   // in line
  EXPECT_FALSE(SegmentsIntersect({0, 0}, {1, 0}, {0, 1}, {1, 1}));   // parallel
  EXPECT_FALSE(SegmentsIntersect({-1, 0}, {1, 0}, {0.5, 1}, {2, 0.1}));
}

}  // namespace
}  // namespace trackdb::index
