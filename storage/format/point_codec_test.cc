#include "storage/format/point_codec.h"

#include "gtest/gtest.h"

namespace trackdb::storage {
namespace {

TEST(PointCodecTest, RoundTripsEveryField) {
  model::TrackPoint p;
  p.loc_time_ms = -12345;
  p.lat = -89.999999;
  p.lon = 179.123456789;
  p.speed_kmh = 88.5;
  p.accuracy_m = 3;
  p.attributes = {{"driver", "ana"}, {"", std::string("\0\xff", 2)}};
  model::TrackPoint out;
  out.entity = "kept";
  ASSERT_TRUE(DecodePointValue(EncodePointValue(p), &out).ok());
  p.entity = "kept";
  EXPECT_EQ(out, p);
  EXPECT_FALSE(out.direction_deg.has_value());
}

TEST(PointCodecTest, DecodingResetsFieldsOfAReusedPoint) {
  model::TrackPoint full;
  full.speed_kmh = 1;
  full.attributes = {{"a", "b"}};
  model::TrackPoint bare;
  bare.lat = 1;
  ASSERT_TRUE(DecodePointValue(EncodePointValue(bare), &full).ok());
  EXPECT_EQ(full, bare);
}

TEST(PointCodecTest, PositionAtFixedOffsets) {
  model::TrackPoint p;
  p.loc_time_ms = 1700000000123;
  p.lat = 38.1;
  p.lon = 13.3;
  p.attributes = {{"k", "v"}};
  auto pos = DecodePosition(EncodePointValue(p));
  ASSERT_TRUE(pos);
  EXPECT_EQ(pos->loc_time_ms, 1700000000123);
  EXPECT_EQ(pos->lat, 38.1);
  EXPECT_EQ(pos->lon, 13.3);
}

TEST(PointCodecTest, CorruptValuesAreDataLoss) {
  model::TrackPoint p;
  p.speed_kmh = 5;
  p.attributes = {{"key", "value"}};
  const std::string good = EncodePointValue(p);
  model::TrackPoint out;
  for (size_t cut = 0; cut < good.size(); ++cut) {
    EXPECT_EQ(DecodePointValue(good.substr(0, cut), &out).code(),
              absl::StatusCode::kDataLoss)
        << cut;
  }
  EXPECT_EQ(DecodePointValue(good + "x", &out).code(),
            absl::StatusCode::kDataLoss);
  std::string wrong_version = good;
  wrong_version[0] = 9;
  EXPECT_FALSE(DecodePosition(wrong_version));
}

}  // namespace
}  // namespace trackdb::storage
