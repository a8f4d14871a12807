#include "index/redis_geo_format.h"

#include <cmath>
#include <cstdio>
#include <string>

#include "gtest/gtest.h"
#include "index/geohash.h"

namespace trackdb::index {
namespace {

TEST(RedisUnitToMetersTest, RedisUnitsInAnyCase) {
  EXPECT_EQ(RedisUnitToMeters("m"), 1);
  EXPECT_EQ(RedisUnitToMeters("M"), 1);
  EXPECT_EQ(RedisUnitToMeters("km"), 1000);
  EXPECT_EQ(RedisUnitToMeters("kM"), 1000);
  EXPECT_EQ(RedisUnitToMeters("FT"), 0.3048);
  EXPECT_EQ(RedisUnitToMeters("Mi"), 1609.34);
}

TEST(RedisUnitToMetersTest, RejectsOtherUnits) {
  for (const char* u : {"", "meters", "k", "kms", "mile", " m", "m "}) {
    EXPECT_FALSE(RedisUnitToMeters(u)) << "'" << u << "'";
  }
}

TEST(RedisUnitToMetersTest, StopsAtANulByteLikeStrcasecmp) {
  EXPECT_EQ(RedisUnitToMeters(std::string("km\0x", 4)), 1000);
  EXPECT_FALSE(RedisUnitToMeters(std::string("\0m", 2)));
}

TEST(RedisMetersToUnitTest, DividesByTheFactor) {
  EXPECT_EQ(RedisMetersToUnit(1609.34, 1609.34), 1);
  EXPECT_EQ(RedisMetersToUnit(2500, 1000), 2.5);
}

TEST(RedisFormatDistanceTest, FourDecimalsInTheUnit) {
  EXPECT_EQ(RedisFormatDistance(0, 1), "0.0000");
  EXPECT_EQ(RedisFormatDistance(166274.15156960039, 1000), "166.2742");
  EXPECT_EQ(RedisFormatDistance(166274.15156960039, 1), "166274.1516");
  EXPECT_EQ(RedisFormatDistance(0.3048, 0.3048), "1.0000");
  EXPECT_EQ(RedisFormatDistance(1e7, 0.3048), "32808398.9501");
  EXPECT_EQ(RedisFormatDistance(0.00012, 1), "0.0001");
  EXPECT_EQ(RedisFormatDistance(1e-9, 1), "0.0000");
}

// Redis 7.0 rounds llrint(d * 10^4), not printf's exact decimal "%.4f".
// redis-server 7.0.15 replied "50488837.8244" for this distance (GEOSEARCH
// ... FROMLONLAT 13.433009 52.4928928 BYRADIUS 53624779.917120047 ft
// WITHDIST, to a member at score 2404533768249913): d / 0.3048 is
// 50488837.824450001..., which "%.4f" prints as ...8245, while d * 10^4
// rounds to exactly ...82445 * 10^4 and llrint's half-to-even gives ...8244.
TEST(RedisFormatDistanceTest, RoundsLikeFixedpointD2string) {
  EXPECT_EQ(RedisFormatDistance(15388997.768892361, 0.3048), "50488837.8244");
  char printf_text[64];
  std::snprintf(printf_text, sizeof(printf_text), "%.4f",
                15388997.768892361 / 0.3048);
  EXPECT_STREQ(printf_text, "50488837.8245");
}

TEST(RedisFormatCoordinateTest, SeventeenDecimalsTrimmed) {
  // GEOPOS replies of Redis 7.0.15.
  EXPECT_EQ(
      RedisFormatCoordinate(RedisGeoScoreToLatLng(3479099956230698ULL).lon),
      "13.36138933897018433");
  EXPECT_EQ(
      RedisFormatCoordinate(RedisGeoScoreToLatLng(10133099161583616ULL).lat),
      "0.00000126736058093");
  EXPECT_EQ(
      RedisFormatCoordinate(RedisGeoScoreToLatLng(10133099161583616ULL).lon),
      "180");
  EXPECT_EQ(RedisFormatCoordinate(kRedisLatMax), "85.0511287799999991");
  EXPECT_EQ(RedisFormatCoordinate(0.5), "0.5");
  EXPECT_EQ(RedisFormatCoordinate(-12.25), "-12.25");
}

TEST(RedisFormatCoordinateTest, NegativeZeroPrintsAsZero) {
  EXPECT_EQ(RedisFormatCoordinate(-0.0), "0");
  EXPECT_EQ(RedisFormatCoordinate(-1e-20), "0");
  EXPECT_EQ(RedisFormatCoordinate(0.0), "0");
}

}  // namespace
}  // namespace trackdb::index
