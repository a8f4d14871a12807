#include "service/resp/testing/geo_test_util.h"

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "model/clock.h"
#include "types/keyspace.h"

namespace trackdb::resp::testing {

void SetStringBoth(Differential& d, int db, const std::string& key,
                   const std::string& value) {
  RawClient redis(d.redis_port());
  ASSERT_EQ(redis.Call({"SELECT", absl::StrCat(db)}), "+OK\r\n");
  ASSERT_EQ(redis.Call({"SET", key, value}), "+OK\r\n");
  const std::string names[] = {types::KeyName(db, key)};
  ASSERT_TRUE(
      d.trackdb_server()
          .store()
          .UpdateStrings(names, NowMs(),
                         [&](auto* values) {
                           (*values)[0] = storage::StringValue{value, 0};
                           return absl::OkStatus();
                         })
          .ok());
}

void Resp3Both(Differential& d) {
  auto replies = d.Call({"HELLO", "3"});
  EXPECT_THAT(replies.redis, ::testing::StartsWith("%7\r\n"));
  EXPECT_THAT(replies.trackdb, ::testing::StartsWith("%7\r\n"));
}

void AddTrackdbOnlyPoint(Differential& d, int db, const std::string& key,
                         const std::string& member, double lat, double lon) {
  model::TrackPoint p;
  p.entity = member;
  p.loc_time_ms = NowMs();
  p.lat = lat;
  p.lon = lon;
  ASSERT_TRUE(
      d.trackdb_server().store().AddPoints(types::KeyName(db, key), {p}).ok());
}

}  // namespace trackdb::resp::testing
