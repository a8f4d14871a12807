#include "index/interpolate.h"

#include <cmath>
#include <random>

#include "gtest/gtest.h"
#include "index/distance.h"

namespace trackdb::index {
namespace {

TEST(InterpolateGreatCircleTest, EndsAndMidpointOnTheEquator) {
  const LatLng a{0, 10}, b{0, 20};
  EXPECT_EQ(InterpolateGreatCircle(a, b, 0).lon, 10);
  EXPECT_EQ(InterpolateGreatCircle(a, b, 1).lon, 20);
  const LatLng mid = InterpolateGreatCircle(a, b, 0.5);
  EXPECT_NEAR(mid.lat, 0, 1e-12);
  EXPECT_NEAR(mid.lon, 15, 1e-12);
  // Out of range fractions are clamped to the ends.
  EXPECT_EQ(InterpolateGreatCircle(a, b, -1).lon, 10);
  EXPECT_EQ(InterpolateGreatCircle(a, b, 2).lon, 20);
}

TEST(InterpolateGreatCircleTest, CrossesTheAntimeridianTheShortWay) {
  const LatLng mid = InterpolateGreatCircle({10, 179}, {10, -179}, 0.5);
  EXPECT_NEAR(std::fabs(mid.lon), 180, 1e-9);
  EXPECT_GT(mid.lat, 10);  // a great circle bulges towards the pole
}

TEST(InterpolateGreatCircleTest, SameOrAntipodalEnds) {
  const LatLng a{40, 116};
  EXPECT_EQ(InterpolateGreatCircle(a, a, 0.3).lat, 40);
  const LatLng anti{-40, -64};
  EXPECT_EQ(InterpolateGreatCircle(a, anti, 0.3).lat, 40);
  EXPECT_EQ(InterpolateGreatCircle(a, anti, 0.7).lat, -40);
}

// The point at fraction x is x of the way by distance, and on the path:
// its distances to both ends add up to the whole.
TEST(InterpolateGreatCircleTest, DistancesSplitByTheFraction) {
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> lat(-80, 80), lon(-180, 180),
      unit(0, 1);
  for (int i = 0; i < 1000; ++i) {
    const LatLng a{lat(rng), lon(rng)};
    const LatLng b{a.lat + (unit(rng) - 0.5), a.lon + (unit(rng) - 0.5)};
    const double f = unit(rng);
    const LatLng p = InterpolateGreatCircle(a, b, f);
    const double whole = HaversineMeters(a, b);
    EXPECT_NEAR(HaversineMeters(a, p), f * whole, 1e-6 * whole + 1e-6);
    EXPECT_NEAR(HaversineMeters(a, p) + HaversineMeters(p, b), whole,
                1e-6 * whole + 1e-6);
  }
}

TEST(SphericalMeanTest, AveragesAcrossTheAntimeridian) {
  const LatLng mean = SphericalMean({{10, 179.99}, {10, -179.99}});
  EXPECT_NEAR(std::fabs(mean.lon), 180, 1e-9);
  EXPECT_NEAR(mean.lat, 10, 1e-6);
  const LatLng same = SphericalMean({{40, 116}, {40, 116}});
  EXPECT_NEAR(same.lat, 40, 1e-12);
  EXPECT_NEAR(same.lon, 116, 1e-12);
}

}  // namespace
}  // namespace trackdb::index
