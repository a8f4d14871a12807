#include "index/geohash.h"

#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "index/distance.h"

namespace trackdb::index {
namespace {

// Vectors measured on Redis 7.0 (GEOADD, ZSCORE, GEOHASH, GEOPOS, GEODIST).
constexpr LatLng kPalermo{38.115556, 13.361389};
constexpr LatLng kCatania{37.502669, 15.087269};
constexpr uint64_t kPalermoScore = 3479099956230698ULL;
constexpr uint64_t kCataniaScore = 3479447370796909ULL;

TEST(RedisGeoScoreTest, MatchesRedisScores) {
  EXPECT_EQ(RedisGeoScore(kPalermo), kPalermoScore);
  EXPECT_EQ(RedisGeoScore(kCatania), kCataniaScore);
}

TEST(RedisGeoScoreTest, MatchesRedisGeohashStrings) {
  EXPECT_EQ(RedisGeohashString(kPalermoScore), "sqc8b49rny0");
  EXPECT_EQ(RedisGeohashString(kCataniaScore), "sqdtr74hyu0");
}

TEST(RedisGeoScoreTest, DecodesToRedisGeoposCentre) {
  const LatLng p = RedisGeoScoreToLatLng(kPalermoScore);
  // GEOPOS prints 17 decimals of the exact double.
  EXPECT_EQ(absl::StrFormat("%.17f", p.lon), "13.36138933897018433");
  EXPECT_EQ(absl::StrFormat("%.17f", p.lat), "38.11555639549629859");
}

TEST(RedisGeoScoreTest, GeodistPalermoCatania) {
  // Redis measures between decoded cell centres.
  const double m = HaversineMeters(RedisGeoScoreToLatLng(kPalermoScore),
                                   RedisGeoScoreToLatLng(kCataniaScore));
  EXPECT_EQ(absl::StrFormat("%.4f", m / 1000), "166.2742");
  EXPECT_EQ(absl::StrFormat("%.4f", m), "166274.1516");
}

TEST(RedisGeoScoreTest, RejectsWhatRedisRejects) {
  EXPECT_FALSE(RedisGeoScore({85.06, 0}));
  EXPECT_FALSE(RedisGeoScore({-85.06, 0}));
  EXPECT_FALSE(RedisGeoScore({0, 180.0001}));
  EXPECT_FALSE(RedisGeoScore({std::nan(""), 0}));
  EXPECT_TRUE(RedisGeoScore({85.05, 180}));
  EXPECT_TRUE(RedisGeoScore({-85.05112878, -180}));
}

TEST(RedisGeoScoreTest, ScoreFitsIn52Bits) {
  const auto s = RedisGeoScore({85.0511287, 179.9999999});
  ASSERT_TRUE(s);
  EXPECT_LT(*s, 1ULL << 52);
}

// At the top of Redis's ranges the scaled offset is 2^step, one past the
// last cell, and Redis's truncation carries a bit out of the step's bits:
// Redis 7 scores GEOADD 0 85.05112878 as 6755399441055744 = 2^52 + 2^51.
TEST(RedisGeoScoreTest, TopOfTheRangeCarriesABitOutAsInRedis) {
  EXPECT_EQ(RedisGeoScore({kRedisLatMax, 0}), 6755399441055744ULL);
  EXPECT_EQ(RedisGeoScore({0, kRedisLonMax}), 10133099161583616ULL);
}

// At step 32, 2^32 does not fit the uint32 Redis truncates to: the offset
// wraps to 0 instead of being undefined behaviour (which --config=asan's
// UBSan turns into a failure).
TEST(GeohashEncodeTest, Step32AtTheTopOfTheRangeWraps) {
  const auto hash = GeohashEncode({kRedisLatMax, kRedisLonMax}, 32);
  ASSERT_TRUE(hash);
  EXPECT_EQ(hash->bits, 0u);
  EXPECT_EQ(hash->step, 32);
}

// The top cell at step 32 has index 2^32 - 1 on each axis; its upper edge
// is the range's top, not its bottom (a 32-bit + 1 would wrap to 0).
TEST(GeohashDecodeTest, TopCellAtStep32EndsAtTheTop) {
  const GeohashArea area =
      GeohashDecodeArea(GeohashBits{~uint64_t{0}, /*step=*/32});
  EXPECT_DOUBLE_EQ(area.lat_max, kRedisLatMax);
  EXPECT_DOUBLE_EQ(area.lon_max, kRedisLonMax);
  EXPECT_LT(area.lat_min, area.lat_max);
  EXPECT_LT(area.lon_min, area.lon_max);
}

TEST(GeohashDecodeTest, CentreRoundTripsThroughEncode) {
  for (double lat = -85; lat <= 85; lat += 7.3) {
    for (double lon = -180; lon <= 180; lon += 11.7) {
      const auto score = RedisGeoScore({lat, lon});
      ASSERT_TRUE(score);
      const LatLng c = RedisGeoScoreToLatLng(*score);
      EXPECT_EQ(RedisGeoScore(c), score) << lat << "," << lon;
      EXPECT_LT(HaversineMeters(c, {lat, lon}), 1.0);
    }
  }
}

TEST(GeohashNeighborsTest, NeighboursAreAdjacentCells) {
  const GeohashBits cell = *GeohashEncode(kPalermo, kRedisGeoStep);
  const GeohashArea a = GeohashDecodeArea(cell);
  const auto n = GeohashNeighbors(cell);
  const GeohashArea north = GeohashDecodeArea(n[kNorth]);
  EXPECT_DOUBLE_EQ(north.lat_min, a.lat_max);
  EXPECT_DOUBLE_EQ(north.lon_min, a.lon_min);
  const GeohashArea east = GeohashDecodeArea(n[kEast]);
  EXPECT_DOUBLE_EQ(east.lon_min, a.lon_max);
  EXPECT_DOUBLE_EQ(east.lat_min, a.lat_min);
  const GeohashArea west = GeohashDecodeArea(n[kWest]);
  EXPECT_DOUBLE_EQ(west.lon_max, a.lon_min);
  const GeohashArea south = GeohashDecodeArea(n[kSouth]);
  EXPECT_DOUBLE_EQ(south.lat_max, a.lat_min);
  const GeohashArea ne = GeohashDecodeArea(n[kNorthEast]);
  EXPECT_DOUBLE_EQ(ne.lat_min, a.lat_max);
  EXPECT_DOUBLE_EQ(ne.lon_min, a.lon_max);
  const GeohashArea sw = GeohashDecodeArea(n[kSouthWest]);
  EXPECT_DOUBLE_EQ(sw.lat_max, a.lat_min);
  EXPECT_DOUBLE_EQ(sw.lon_max, a.lon_min);
  const GeohashArea se = GeohashDecodeArea(n[kSouthEast]);
  EXPECT_DOUBLE_EQ(se.lat_max, a.lat_min);
  EXPECT_DOUBLE_EQ(se.lon_min, a.lon_max);
  const GeohashArea nw = GeohashDecodeArea(n[kNorthWest]);
  EXPECT_DOUBLE_EQ(nw.lat_min, a.lat_max);
  EXPECT_DOUBLE_EQ(nw.lon_max, a.lon_min);
}

TEST(GeohashNeighborsTest, EastOfTheAntimeridianWrapsToMinus180) {
  const GeohashBits cell = *GeohashEncode({10, 179.99}, 8);
  const GeohashArea east = GeohashDecodeArea(GeohashNeighbors(cell)[kEast]);
  EXPECT_DOUBLE_EQ(east.lon_min, -180);
  const GeohashBits west_edge = *GeohashEncode({10, -179.99}, 8);
  const GeohashArea west =
      GeohashDecodeArea(GeohashNeighbors(west_edge)[kWest]);
  EXPECT_DOUBLE_EQ(west.lon_max, 180);
}

TEST(GeohashNeighborsTest, MovesKeepTheStep) {
  const GeohashBits cell = *GeohashEncode(kCatania, 12);
  for (const GeohashBits& n : GeohashNeighbors(cell)) {
    EXPECT_EQ(n.step, 12);
    EXPECT_LT(n.bits, 1ULL << 24);
    EXPECT_NE(n.bits, cell.bits);
  }
}

}  // namespace
}  // namespace trackdb::index
