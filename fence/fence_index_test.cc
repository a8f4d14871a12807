#include "fence/fence_index.h"

#include <random>
#include <vector>

#include "fence/fence_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trackdb::fence {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

FenceShape Shape(const v1::Fence& proto) {
  auto shape = FenceShape::FromProto(proto, model::Limits());
  EXPECT_TRUE(shape.ok()) << shape.status();
  return *std::move(shape);
}

// A random circle, rect or polygon near (lat, lon), up to ~20 km across.
FenceShape RandomShape(double lat, double lon, std::mt19937* rng) {
  std::uniform_real_distribution<double> size(0.0005, 0.1);
  std::uniform_int_distribution<int> kind(0, 2), sides(3, 9);
  const double r = size(*rng);
  auto wrap = [](double x) {
    return x > 180 ? x - 360 : x < -180 ? x + 360 : x;
  };
  switch (kind(*rng)) {
    case 0:
      return Shape(testing::CircleFence(lat, wrap(lon), r * 111000));
    case 1:
      return Shape(
          testing::RectFence(lat - r, wrap(lon - r), lat + r, wrap(lon + r)));
    default: {
      std::vector<index::LatLng> ring;
      const int n = sides(*rng);
      for (int i = 0; i < n; ++i) {
        const double angle = 2 * M_PI * i / n;
        ring.push_back({lat + r * std::sin(angle), lon + r * std::cos(angle)});
      }
      if (lon + r > 180 || lon - r < -180) {
        return Shape(testing::CircleFence(lat, wrap(lon), r * 111000));
      }
      return Shape(testing::PolygonFence({ring}));
    }
  }
}

TEST(FenceIndexTest, FindsEveryFenceThatContainsAFixOrMeetsAPath) {
  std::mt19937 rng(7);
  // Fences around two places: one of them on the antimeridian.
  const index::LatLng places[] = {{40, 116}, {0, 180}};
  std::uniform_real_distribution<double> spread(-0.3, 0.3);
  std::vector<FenceShape> shapes;
  FenceIndex index;
  for (int i = 0; i < 600; ++i) {
    const index::LatLng& at = places[i % 2];
    shapes.push_back(
        RandomShape(at.lat + spread(rng), at.lon + spread(rng), &rng));
    index.Add(i, shapes.back());
  }
  int contained = 0, met = 0;
  size_t candidates = 0, path_candidates = 0;
  for (int q = 0; q < 4000; ++q) {
    const index::LatLng& at = places[q % 2];
    auto wrap = [](double x) {
      return x > 180 ? x - 360 : x < -180 ? x + 360 : x;
    };
    const index::LatLng a{at.lat + spread(rng), wrap(at.lon + spread(rng))};
    const index::LatLng b{a.lat + spread(rng) / 10,
                          wrap(a.lon + spread(rng) / 10)};
    std::vector<uint64_t> near, along;
    index.Candidates(a, &near);
    index.PathCandidates(a, b, &along);
    candidates += near.size();
    path_candidates += along.size();
    for (size_t f = 0; f < shapes.size(); ++f) {
      if (shapes[f].Contains(a)) {
        ++contained;
        ASSERT_THAT(near, Contains(f)) << "fix " << a.lat << "," << a.lon;
      }
      if (shapes[f].PathMeets(a, b)) {
        ++met;
        ASSERT_THAT(along, Contains(f))
            << a.lat << "," << a.lon << " to " << b.lat << "," << b.lon;
      }
    }
  }
  EXPECT_GT(contained, 4000);
  EXPECT_GT(met, contained);
  // Selective: a fix is offered a few times the fences that hold it, not
  // all 600.
  EXPECT_LT(candidates, 4 * contained);
  EXPECT_LT(path_candidates, 4 * met);
}

TEST(FenceIndexTest, APathAcrossTheAntimeridianLooksOnlyThere) {
  FenceIndex index;
  index.Add(1, Shape(testing::CircleFence(0, 179.95, 500)));
  index.Add(2, Shape(testing::CircleFence(0, 0, 500)));
  index.Add(3, Shape(testing::CircleFence(0, -179.95, 500)));
  std::vector<uint64_t> ids;
  index.PathCandidates({0, 179.9}, {0, -179.9}, &ids);
  EXPECT_THAT(ids, ElementsAre(1, 3));
  ids.clear();
  index.PathCandidates({0, -179.9}, {0, 179.9}, &ids);
  EXPECT_THAT(ids, ElementsAre(1, 3));
}

TEST(FenceIndexTest, RemovedAndRefiledFences) {
  FenceIndex index;
  index.Add(1, Shape(testing::CircleFence(40, 116, 500)));
  index.Add(2, Shape(testing::CircleFence(40, 116, 5000)));
  std::vector<uint64_t> ids;
  index.Candidates({40, 116}, &ids);
  EXPECT_THAT(ids, ElementsAre(1, 2));
  index.Remove(1);
  index.Add(2, Shape(testing::CircleFence(10, 10, 500)));  // moved
  ids.clear();
  index.Candidates({40, 116}, &ids);
  EXPECT_THAT(ids, IsEmpty());
  index.Candidates({10, 10}, &ids);
  EXPECT_THAT(ids, ElementsAre(2));
  EXPECT_EQ(index.size(), 1u);
}

}  // namespace
}  // namespace trackdb::fence
