#include "service/point_convert.h"

#include "conf/config.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

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
  auto p = ToTrackPoint(in, "point", config.limits(), 1700000000000);
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
  EXPECT_THAT(ToTrackPoint(in, "point", config.limits(), 1700000000000)
                  .status()
                  .message(),
              HasSubstr("point.attributes[\"k\"]"));
  in.clear_attributes();
  for (int i = 0; i < 33; ++i) {
    (*in.mutable_attributes())[std::to_string(i)] = "v";
  }
  EXPECT_THAT(ToTrackPoint(in, "point", config.limits(), 1700000000000)
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
  EXPECT_TRUE(ToTrackPoint(in, "p", config.limits(), 1000).ok());
  in.set_loc_time_ms(1001);  // 1 ms in the future
  EXPECT_THAT(ToTrackPoint(in, "p", config.limits(), 1000).status().message(),
              HasSubstr("p.loc_time_ms"));
}

}  // namespace
}  // namespace trackdb::service
