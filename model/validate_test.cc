#include "model/validate.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trackdb::model {
namespace {

using ::testing::HasSubstr;

constexpr int64_t kNow = 1700000000000;

TrackPoint Valid() {
  TrackPoint p;
  p.entity = "truck-7";
  p.loc_time_ms = kNow;
  p.lat = 39.9;
  p.lon = 116.4;
  return p;
}

void ExpectInvalid(const absl::Status& s, const std::string& names) {
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(s.message(), HasSubstr(names)) << s;
}

TEST(ValidateNames, BoundsAreInclusiveAndEmptyIsAName) {
  EXPECT_TRUE(ValidateCollection("c").ok());
  EXPECT_TRUE(ValidateCollection(std::string(kMaxCollectionBytes, 'c')).ok());
  ExpectInvalid(ValidateCollection(std::string(kMaxCollectionBytes + 1, 'c')),
                "collection is 1025 bytes; at most 1024");
  EXPECT_TRUE(ValidateCollection("").ok());
  EXPECT_TRUE(ValidateEntityId("", "m").ok());
  EXPECT_TRUE(ValidateEntityId(std::string(kMaxEntityIdBytes, 'e'), "m").ok());
  ExpectInvalid(ValidateEntityId(std::string(kMaxEntityIdBytes + 1, 'e'), "m"),
                "m is 1025 bytes");
  // Any bytes: NUL and 0xff included.
  EXPECT_TRUE(ValidateEntityId(std::string("a\0\xff", 3), "m").ok());
}

TEST(ValidateNames, AFenceNameIsOneTo1024BytesOfUtf8) {
  EXPECT_TRUE(ValidateFenceName("depot").ok());
  EXPECT_TRUE(ValidateFenceName(std::string(kMaxFenceNameBytes, 'f')).ok());
  EXPECT_TRUE(
      ValidateFenceName("d\xc3\xa9p\xc3\xb4t \xe6\x9c\xba\xf0\x9f\x9a\x9a")
          .ok());
  ExpectInvalid(ValidateFenceName(""), "name must be 1 to 1024 bytes, got 0");
  ExpectInvalid(ValidateFenceName(std::string(kMaxFenceNameBytes + 1, 'f')),
                "got 1025");
  ExpectInvalid(ValidateFenceName("\xff", "fence name"),
                "fence name must be UTF-8");
}

TEST(ValidateNames, Utf8AsProtobufChecksIt) {
  EXPECT_TRUE(IsUtf8(""));
  EXPECT_TRUE(IsUtf8(std::string("a\0b", 3)));
  EXPECT_TRUE(IsUtf8("\xf4\x8f\xbf\xbf"));       // U+10FFFF
  EXPECT_FALSE(IsUtf8("\xf4\x90\x80\x80"));      // above U+10FFFF
  EXPECT_FALSE(IsUtf8("\xed\xa0\x80"));          // a surrogate
  EXPECT_FALSE(IsUtf8("\xc0\xaf"));              // overlong '/'
  EXPECT_FALSE(IsUtf8("\xe2\x82"));              // cut short
  EXPECT_FALSE(IsUtf8("\x80"));                  // a continuation first
  EXPECT_FALSE(IsUtf8("\xf8\x88\x80\x80\x80"));  // 5 bytes
}

TEST(ValidatePosition, RedisGeoRangeIsTheRange) {
  EXPECT_TRUE(ValidatePosition(kMaxLatitude, kMaxLongitude, "p").ok());
  EXPECT_TRUE(ValidatePosition(kMinLatitude, kMinLongitude, "p").ok());
  ExpectInvalid(ValidatePosition(85.06, 0, "p"), "p.latitude must be");
  ExpectInvalid(ValidatePosition(-90, 0, "p"), "p.latitude");
  ExpectInvalid(ValidatePosition(0, 180.0001, "p"), "p.longitude");
  ExpectInvalid(ValidatePosition(NAN, 0, "p"), "p.latitude");
  ExpectInvalid(ValidatePosition(0, INFINITY, "p"), "p.longitude");
}

TEST(ValidateStoredPoint, OptionalFieldsAndEntity) {
  EXPECT_TRUE(ValidateStoredPoint(Valid(), "points[0]").ok());
  TrackPoint p = Valid();
  p.entity = std::string(kMaxEntityIdBytes + 1, 'e');
  ExpectInvalid(ValidateStoredPoint(p, "points[2]"),
                "points[2].entity_id is 1025 bytes");
  p = Valid();
  p.speed_kmh = -1;
  ExpectInvalid(ValidateStoredPoint(p, "x"), "x.speed_kmh");
  p = Valid();
  p.direction_deg = 360;
  ExpectInvalid(ValidateStoredPoint(p, "x"), "x.direction");
  p.direction_deg = 359.9;
  EXPECT_TRUE(ValidateStoredPoint(p, "x").ok());
  p = Valid();
  p.height_m = NAN;
  ExpectInvalid(ValidateStoredPoint(p, "x"), "x.height_m");
  p = Valid();
  p.accuracy_m = INFINITY;
  ExpectInvalid(ValidateStoredPoint(p, "x"), "x.accuracy_m");
}

TEST(ValidateIncomingPoint, TimeWindowAttributesAndRedisRange) {
  const Limits limits;
  EXPECT_TRUE(ValidateIncomingPoint(Valid(), "point", limits, kNow).ok());
  TrackPoint p = Valid();
  p.lat = 89;  // storable, but no door takes it
  EXPECT_TRUE(ValidateStoredPoint(p, "point").ok());
  ExpectInvalid(ValidateIncomingPoint(p, "point", limits, kNow),
                "point.latitude must be a number in [-85.0511");
  p.lat = 90.5;
  ExpectInvalid(ValidateStoredPoint(p, "point"), "point.latitude");
  p = Valid();
  p.loc_time_ms = 0;
  ExpectInvalid(ValidateIncomingPoint(p, "point", limits, kNow),
                "point.loc_time_ms is required");
  p.loc_time_ms = kNow + limits.max_future_ms;
  EXPECT_TRUE(ValidateIncomingPoint(p, "point", limits, kNow).ok());
  p.loc_time_ms += 1;
  ExpectInvalid(ValidateIncomingPoint(p, "point", limits, kNow),
                "seconds by mistake?");
  p.loc_time_ms = limits.min_loc_time_ms - 1;
  ExpectInvalid(ValidateIncomingPoint(p, "point", limits, kNow),
                "point.loc_time_ms");
  p = Valid();
  for (uint32_t i = 0; i <= limits.max_attributes; ++i) {
    p.attributes.emplace_back(std::to_string(i), "v");
  }
  ExpectInvalid(ValidateIncomingPoint(p, "point", limits, kNow),
                "point.attributes has 33 entries; at most 32");
  p.attributes = {{"k", std::string(limits.max_attribute_bytes + 1, 'v')}};
  ExpectInvalid(ValidateIncomingPoint(p, "point", limits, kNow),
                "point.attributes[\"k\"] key or value over 256 bytes");
}

TEST(ValidateRequestSizes, Bounds) {
  Limits limits;
  limits.max_batch_points = 2;
  limits.max_radius_m = 100;
  limits.max_polygon_vertices = 4;
  EXPECT_TRUE(ValidateBatchSize(2, "points", limits).ok());
  ExpectInvalid(ValidateBatchSize(3, "points", limits),
                "points has 3 items; at most 2");
  ExpectInvalid(ValidateBatchSize(0, "points", limits),
                "points must not be empty");
  EXPECT_TRUE(ValidateRadius(1e12, "radius_m", Limits()).ok());  // no limit
  EXPECT_TRUE(ValidateRadius(0, "radius_m", limits).ok());
  EXPECT_TRUE(ValidateRadius(100, "radius_m", limits).ok());
  ExpectInvalid(ValidateRadius(100.5, "radius_m", limits), "radius_m");
  ExpectInvalid(ValidateRadius(-1, "radius_m", limits), "radius_m");
  ExpectInvalid(ValidateRadius(NAN, "radius_m", limits), "radius_m");
  EXPECT_TRUE(ValidatePolygonSize(3, "vertices", limits).ok());
  ExpectInvalid(ValidatePolygonSize(2, "vertices", limits), "vertices has 2");
  ExpectInvalid(ValidatePolygonSize(5, "vertices", limits), "vertices has 5");
  uint32_t page = 0;
  EXPECT_TRUE(ValidatePageSize(0, "limit", &page).ok());
  EXPECT_EQ(page, kDefaultPageSize);
  EXPECT_TRUE(ValidatePageSize(kMaxPageSize, "limit", &page).ok());
  EXPECT_EQ(page, kMaxPageSize);
  ExpectInvalid(ValidatePageSize(kMaxPageSize + 1, "limit", &page), "limit");
}

TEST(ValidateRetention, AgeBoundsAndLatestNeedsAnAge) {
  EXPECT_TRUE(ValidateRetention(0, false, "max_age_ms", "expire_latest").ok());
  EXPECT_TRUE(
      ValidateRetention(kMaxRetentionAgeMs, true, "max_age_ms", "expire_latest")
          .ok());
  ExpectInvalid(ValidateRetention(-1, false, "max_age_ms", "expire_latest"),
                "max_age_ms");
  ExpectInvalid(ValidateRetention(kMaxRetentionAgeMs + 1, false, "max_age_ms",
                                  "expire_latest"),
                "max_age_ms");
  ExpectInvalid(ValidateRetention(0, true, "max_age_ms", "expire_latest"),
                "expire_latest");
  EXPECT_TRUE(ValidateRetentionPoints(0, "max_points").ok());
  EXPECT_TRUE(ValidateRetentionPoints(kMaxRetentionPoints, "max_points").ok());
  ExpectInvalid(ValidateRetentionPoints(-1, "max_points"), "max_points");
  ExpectInvalid(ValidateRetentionPoints(kMaxRetentionPoints + 1, "max_points"),
                "max_points");
}

TEST(Limits, UnsetFieldsTakeTheTableDefaults) {
  v1::LimitsConfig config;
  config.set_max_attributes(3);
  const Limits l = LimitsFrom(config);
  EXPECT_EQ(l.max_attributes, 3u);
  EXPECT_EQ(l.max_batch_points, Limits().max_batch_points);
  const v1::LimitsConfig filled = WithLimitDefaults(config);
  EXPECT_EQ(filled.max_attributes(), 3u);
  EXPECT_TRUE(filled.has_max_future_ms());
  EXPECT_EQ(filled.max_future_ms(), Limits().max_future_ms);
}

TEST(ValidateTest, ReadWindowNeedsARowAndAnOrderedWindow) {
  EXPECT_TRUE(ValidateReadWindow(1, 5, 5).ok());
  EXPECT_TRUE(ValidateReadWindow(100, INT64_MIN, INT64_MAX).ok());
  const absl::Status no_rows = ValidateReadWindow(0, 0, 1);
  EXPECT_EQ(no_rows.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(no_rows.message(), "limit must be at least 1, got 0");
  const absl::Status backwards = ValidateReadWindow(10, 7, 6);
  EXPECT_EQ(backwards.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(backwards.message(), "start time 7 is after end time 6");
}

}  // namespace
}  // namespace trackdb::model
