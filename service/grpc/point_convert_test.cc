#include "service/grpc/point_convert.h"

#include "conf/config.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "model/validate.h"

namespace trackdb::service {
namespace {

using ::testing::HasSubstr;

TEST(PointConvertTest, RoundTripKeepsOptionalsAndAttributes) {
  v1::TrackdbConfig config = conf::WithDefaults({});
  v1::Point in;
  in.set_entity_id("car");
  in.set_loc_time_ms(1700000000000);
  in.set_latitude(1.5);
  in.set_longitude(-2.5);
  in.set_direction(0);  // present, and zero
  (*in.mutable_attributes())["b"] = "2";
  (*in.mutable_attributes())["a"] = "1";
  auto p = ToTrackPoint(in, "point", model::LimitsFrom(config.limits()),
                        1700000000000);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->direction_deg, 0.0);
  EXPECT_FALSE(p->speed_kmh.has_value());
  ASSERT_EQ(p->attributes.size(), 2u);
  EXPECT_EQ(p->attributes[0].first, "a");  // sorted
  v1::Point out;
  ToProtoPoint(*p, false, &out);
  EXPECT_EQ(out.SerializeAsString().size(), in.SerializeAsString().size());
  EXPECT_TRUE(out.has_direction());
  EXPECT_EQ(out.attributes().at("b"), "2");
}

TEST(PointConvertTest, AttributeLimits) {
  v1::TrackdbConfig config = conf::WithDefaults({});
  v1::Point in;
  in.set_entity_id("car");
  in.set_loc_time_ms(1700000000000);
  (*in.mutable_attributes())["k"] = std::string(257, 'v');
  EXPECT_THAT(ToTrackPoint(in, "point", model::LimitsFrom(config.limits()),
                           1700000000000)
                  .status()
                  .message(),
              HasSubstr("point.attributes[\"k\"]"));
  in.clear_attributes();
  for (int i = 0; i < 33; ++i) {
    (*in.mutable_attributes())[std::to_string(i)] = "v";
  }
  EXPECT_THAT(ToTrackPoint(in, "point", model::LimitsFrom(config.limits()),
                           1700000000000)
                  .status()
                  .message(),
              HasSubstr("point.attributes has 33"));
}

TEST(PointConvertTest, LocTimeWindowIsConfigurable) {
  v1::TrackdbConfig config;
  config.mutable_limits()->set_min_loc_time_ms(0);
  config.mutable_limits()->set_max_future_ms(0);
  config = conf::WithDefaults(config);
  v1::Point in;
  in.set_entity_id("car");
  in.set_loc_time_ms(5);  // 1970, allowed by this window
  EXPECT_TRUE(
      ToTrackPoint(in, "p", model::LimitsFrom(config.limits()), 1000).ok());
  in.set_loc_time_ms(1001);  // 1 ms in the future
  EXPECT_THAT(ToTrackPoint(in, "p", model::LimitsFrom(config.limits()), 1000)
                  .status()
                  .message(),
              HasSubstr("p.loc_time_ms"));
}

// Bulk import validates model::TrackPoints with ValidateTrackPoint:
// it must refuse exactly what ToTrackPoint refuses, with the same message.
TEST(PointConvertTest, ValidateTrackPointAgreesWithToTrackPoint) {
  v1::TrackdbConfig config = conf::WithDefaults({});
  const int64_t now = 1700000000000;
  v1::Point good;
  good.set_entity_id("car");
  good.set_loc_time_ms(now);
  good.set_latitude(1);
  good.set_longitude(2);
  std::vector<v1::Point> cases(9, good);
  cases[0].set_entity_id("");
  cases[1].set_loc_time_ms(0);
  cases[2].set_loc_time_ms(now / 1000);  // seconds by mistake
  cases[3].set_latitude(85.06);          // past Redis's GEO range
  cases[4].set_speed_kmh(-1);
  cases[5].set_direction(360);
  cases[6].set_accuracy_m(-2);
  (*cases[7].mutable_attributes())["k"] = std::string(300, 'v');
  cases[8].set_height_m(12);  // valid
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(i);
    model::TrackPoint p;
    p.entity = cases[i].entity_id();
    p.loc_time_ms = cases[i].loc_time_ms();
    p.lat = cases[i].latitude();
    p.lon = cases[i].longitude();
    if (cases[i].has_speed_kmh()) p.speed_kmh = cases[i].speed_kmh();
    if (cases[i].has_direction()) p.direction_deg = cases[i].direction();
    if (cases[i].has_height_m()) p.height_m = cases[i].height_m();
    if (cases[i].has_accuracy_m()) p.accuracy_m = cases[i].accuracy_m();
    for (const auto& [k, v] : cases[i].attributes()) {
      p.attributes.emplace_back(k, v);
    }
    const absl::Status direct =
        ValidateTrackPoint(p, "row", model::LimitsFrom(config.limits()), now);
    const absl::Status converted =
        ToTrackPoint(cases[i], "row", model::LimitsFrom(config.limits()), now)
            .status();
    EXPECT_EQ(direct, converted);
    EXPECT_EQ(direct.ok(), i == 8) << direct;
  }
}

}  // namespace
}  // namespace trackdb::service
