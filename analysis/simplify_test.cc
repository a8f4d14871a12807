#include "analysis/simplify.h"

#include <cmath>
#include <random>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "index/distance.h"

namespace trackdb::analysis {
namespace {

using ::testing::ElementsAre;

TEST(SimplifyTest, StraightLinesKeepTheirEnds) {
  std::vector<index::LatLng> line;
  for (int i = 0; i <= 100; ++i) line.push_back({0, 10 + i * 1e-4});
  EXPECT_THAT(SimplifyDouglasPeucker(line, 1), ElementsAre(0, 100));
  EXPECT_EQ(SimplifyDouglasPeucker(line, 0).size(), 101u);
  EXPECT_TRUE(SimplifyDouglasPeucker({}, 5).empty());
  EXPECT_THAT(SimplifyDouglasPeucker({{1, 1}}, 5), ElementsAre(0));
}

TEST(SimplifyTest, KeepsTheCornerOfAnL) {
  // East 1 km, then north 1 km: the corner is 707 m from the diagonal.
  std::vector<index::LatLng> l;
  for (int i = 0; i <= 10; ++i) l.push_back({0, i * 0.0009});
  for (int i = 1; i <= 10; ++i) l.push_back({i * 0.0009, 0.009});
  EXPECT_THAT(SimplifyDouglasPeucker(l, 10), ElementsAre(0, 10, 20));
  EXPECT_THAT(SimplifyDouglasPeucker(l, 800), ElementsAre(0, 20));
}

// On random walks: every dropped point is within the tolerance of the
// simplified segment spanning it, and a larger tolerance keeps no more.
TEST(SimplifyTest, EveryDroppedPointIsWithinTheTolerance) {
  std::mt19937_64 rng(2);
  std::normal_distribution<double> step(0, 2e-4);
  for (int round = 0; round < 20; ++round) {
    std::vector<index::LatLng> walk = {{40, 116}};
    for (int i = 0; i < 2000; ++i) {
      walk.push_back(
          {walk.back().lat + step(rng), walk.back().lon + step(rng)});
    }
    const double tolerance = 5 + round * 10;
    const std::vector<size_t> kept = SimplifyDouglasPeucker(walk, tolerance);
    ASSERT_GE(kept.size(), 2u);
    EXPECT_EQ(kept.front(), 0u);
    EXPECT_EQ(kept.back(), walk.size() - 1);
    for (size_t k = 1; k < kept.size(); ++k) {
      for (size_t i = kept[k - 1] + 1; i < kept[k]; ++i) {
        ASSERT_LE(
            DistanceToSegmentMeters(walk[i], walk[kept[k - 1]], walk[kept[k]]),
            tolerance);
      }
    }
    EXPECT_LE(SimplifyDouglasPeucker(walk, tolerance * 2).size(), kept.size());
    EXPECT_LT(kept.size(), walk.size());
  }
}

TEST(SimplifyTest, DistanceToSegment) {
  // 0.001 deg of latitude off a segment along the equator: ~111 m.
  EXPECT_NEAR(DistanceToSegmentMeters({0.001, 10.5}, {0, 10}, {0, 11}),
              index::HaversineMeters({0.001, 10.5}, {0, 10.5}), 1e-6);
  // Beyond an end: the distance to that end.
  EXPECT_NEAR(DistanceToSegmentMeters({0, 12}, {0, 10}, {0, 11}),
              index::HaversineMeters({0, 12}, {0, 11}), 1e-6);
  // A segment of one point.
  EXPECT_NEAR(DistanceToSegmentMeters({0, 12}, {0, 11}, {0, 11}),
              index::HaversineMeters({0, 12}, {0, 11}), 1e-6);
}

}  // namespace
}  // namespace trackdb::analysis
