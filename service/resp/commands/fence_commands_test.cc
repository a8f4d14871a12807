// FENCE.* over a live RESP server: fences made, read and removed; GEOADD's
// points evaluated against them in the write path, their events read back
// in proto3 JSON; every bad request refused with an -ERR, writing nothing.
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "service/resp/testing/resp_test_client.h"

namespace trackdb::resp {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::RawClient;
using ::testing::StartsWith;
using testing::TrackdbResp;

// A 500 m circle in Berlin; (13.40, 52.52) is inside, (13.50, 52.52) about
// 6.8 km east of it.
const std::vector<std::string> kDepot = {
    "FENCE.SET", "fleet", "depot", "CIRCLE", "13.40", "52.52", "0.5", "km"};

std::vector<std::string> With(std::vector<std::string> argv,
                              const std::vector<std::string>& more) {
  argv.insert(argv.end(), more.begin(), more.end());
  return argv;
}

TEST(FenceCommandsTest, SetGetListDelete) {
  TrackdbResp server;
  RawClient c(server.port());
  EXPECT_EQ(c.Call(With(kDepot, {"DETECT", "enter,EXIT,dwell", "DWELL", "60000",
                                 "MATCH", "truck*"})),
            ":1\r\n");
  EXPECT_EQ(c.Call(kDepot), ":0\r\n");  // replaced: enter,exit again
  EXPECT_EQ(c.Call({"FENCE.SET", "fleet", "city", "RECT", "13.0", "52.3",
                    "13.8", "52.7", "LATE", "report", "MAXACCURACY", "50",
                    "DEBOUNCE", "3", "10000"}),
            ":1\r\n");
  EXPECT_EQ(c.Call({"FENCE.LIST", "fleet"}),
            "*2\r\n$4\r\ncity\r\n$5\r\ndepot\r\n");

  // The same fence gRPC's GetFence returns, with the key as collection.
  auto stored = server.store().fences().Get("fleet", "city");
  ASSERT_TRUE(stored.ok() && stored->has_value());
  EXPECT_EQ((*stored)->rect().north_east().longitude(), 13.8);
  EXPECT_EQ((*stored)->debounce_fixes(), 3u);
  EXPECT_EQ((*stored)->max_accuracy_m(), 50);
  EXPECT_EQ((*stored)->late_points(), v1::LATE_POINTS_REPORT);
  const std::string depot = c.Call({"FENCE.GET", "fleet", "depot"});
  EXPECT_THAT(depot, HasSubstr("\"collection\":\"fleet\""));
  EXPECT_THAT(depot, HasSubstr("\"radiusM\":500"));
  EXPECT_THAT(depot, Not(HasSubstr("dwell")));  // replaced by plain kDepot

  EXPECT_EQ(c.Call({"FENCE.DEL", "fleet", "depot", "nope", "depot"}), ":1\r\n");
  EXPECT_EQ(c.Call({"FENCE.GET", "fleet", "depot"}), "$-1\r\n");
  EXPECT_EQ(c.Call({"FENCE.LIST", "fleet"}), "*1\r\n$4\r\ncity\r\n");
  // Fences do not make a key.
  EXPECT_EQ(c.Call({"EXISTS", "fleet"}), ":0\r\n");
  EXPECT_EQ(c.Call({"FENCE.LIST", "nokey"}), "*0\r\n");
}

TEST(FenceCommandsTest, GeoaddMovesMembersThroughTheFence) {
  TrackdbResp server;
  RawClient c(server.port());
  ASSERT_EQ(c.Call(kDepot), ":1\r\n");
  EXPECT_EQ(c.Call({"GEOADD", "fleet", "13.50", "52.52", "truck7"}), ":1\r\n");
  EXPECT_EQ(c.Call({"FENCE.EVENTS", "fleet", "0"}), "*2\r\n:1\r\n*0\r\n");
  EXPECT_EQ(c.Call({"GEOADD", "fleet", "13.40", "52.52", "truck7"}), ":0\r\n");
  EXPECT_EQ(c.Call({"FENCE.STATE", "fleet", "depot"}),
            "*1\r\n$6\r\ntruck7\r\n");
  EXPECT_EQ(c.Call({"GEOADD", "fleet", "13.50", "52.52", "truck7"}), ":0\r\n");
  EXPECT_EQ(c.Call({"FENCE.STATE", "fleet", "depot"}), "*0\r\n");

  const std::string events = c.Call({"FENCE.EVENTS", "fleet", "0"});
  EXPECT_THAT(events, StartsWith("*2\r\n:3\r\n*2\r\n"));
  EXPECT_THAT(events, HasSubstr("\"offset\":\"1\",\"collection\":\"fleet\","
                                "\"fence\":\"depot\","
                                "\"kind\":\"FENCE_EVENT_ENTER\""));
  EXPECT_THAT(events, HasSubstr("\"entityId\":\"truck7\""));
  EXPECT_THAT(events, HasSubstr("\"offset\":\"2\""));
  EXPECT_THAT(events, HasSubstr("FENCE_EVENT_EXIT"));
  // Paged by COUNT, from where the last page ended.
  const std::string first =
      c.Call({"FENCE.EVENTS", "fleet", "0", "COUNT", "1"});
  EXPECT_THAT(first, StartsWith("*2\r\n:2\r\n*1\r\n"));
  EXPECT_THAT(first, HasSubstr("FENCE_EVENT_ENTER"));
  const std::string second =
      c.Call({"FENCE.EVENTS", "fleet", "2", "count", "1"});
  EXPECT_THAT(second, StartsWith("*2\r\n:3\r\n*1\r\n"));
  EXPECT_THAT(second, HasSubstr("FENCE_EVENT_EXIT"));
  // The log gRPC's Watch reads holds the same two events.
  auto page = server.store().fences().ReadEvents("fleet", 0, 10);
  ASSERT_TRUE(page.ok());
  ASSERT_EQ(page->events.size(), 2u);
  EXPECT_EQ(page->events[0].kind, v1::FENCE_EVENT_ENTER);
  EXPECT_EQ(page->events[1].kind, v1::FENCE_EVENT_EXIT);
}

TEST(FenceCommandsTest, DatabasesHaveTheirOwnFences) {
  TrackdbResp server;
  RawClient c(server.port());
  ASSERT_EQ(c.Call({"SELECT", "1"}), "+OK\r\n");
  ASSERT_EQ(c.Call(kDepot), ":1\r\n");
  ASSERT_EQ(c.Call({"GEOADD", "fleet", "13.40", "52.52", "bus"}), ":1\r\n");
  EXPECT_EQ(c.Call({"FENCE.STATE", "fleet", "depot"}), "*1\r\n$3\r\nbus\r\n");
  ASSERT_EQ(c.Call({"SELECT", "0"}), "+OK\r\n");
  EXPECT_EQ(c.Call({"FENCE.LIST", "fleet"}), "*0\r\n");
  EXPECT_EQ(c.Call({"GEOADD", "fleet", "13.40", "52.52", "car"}), ":1\r\n");
  EXPECT_EQ(c.Call({"FENCE.EVENTS", "fleet", "0"}), "*2\r\n:1\r\n*0\r\n");
}

TEST(FenceCommandsTest, BinaryMembersAndKeys) {
  TrackdbResp server;
  RawClient c(server.port());
  std::vector<std::string> depot = kDepot;
  depot[1] = "\xfe\xff";
  ASSERT_EQ(c.Call(depot), ":1\r\n");
  ASSERT_EQ(c.Call({"GEOADD", depot[1], "13.40", "52.52", "a\xff"}), ":1\r\n");
  const std::string events = c.Call({"FENCE.EVENTS", depot[1], "0"});
  EXPECT_THAT(events, HasSubstr("\"collection\":\"\u00fe\u00ff\""));
  EXPECT_THAT(events, HasSubstr("\"entityId\":\"a\u00ff\""));
  EXPECT_THAT(c.Call({"FENCE.GET", depot[1], "depot"}),
              HasSubstr("\"collection\":\"\u00fe\u00ff\""));
}

struct BadRequest {
  std::vector<std::string> argv;
  std::string error;  // the reply starts with it
};

TEST(FenceCommandsTest, BadRequestsAreRefusedAndWriteNothing) {
  TrackdbResp server;
  RawClient c(server.port());
  const std::string kSyntax = "-ERR syntax error";
  const std::vector<BadRequest> bad = {
      {{"FENCE.SET", "fleet", "f", "SQUARE", "1", "2", "3"}, kSyntax},
      {{"FENCE.SET", "fleet", "f", "CIRCLE", "1", "2", "3"}, kSyntax},
      {{"FENCE.SET", "fleet", "f", "CIRCLE", "x", "2", "3", "m"},
       "-ERR value is not a valid float"},
      {{"FENCE.SET", "fleet", "f", "CIRCLE", "1", "86", "3", "m"},
       "-ERR invalid longitude,latitude pair 1.000000,86.000000"},
      {{"FENCE.SET", "fleet", "f", "CIRCLE", "1", "2", "-3", "m"},
       "-ERR radius cannot be negative"},
      {{"FENCE.SET", "fleet", "f", "CIRCLE", "1", "2", "3", "yd"},
       "-ERR unsupported unit provided. please use M, KM, FT, MI"},
      {{"FENCE.SET", "fleet", "f", "CIRCLE", "1", "2", "0", "m"},
       "-ERR circle.radius_m"},
      {{"FENCE.SET", "fleet", "f", "RECT", "1", "2", "3"}, kSyntax},
      {{"FENCE.SET", "fleet", "f", "POLYGON", "3", "0", "0", "1", "0"},
       kSyntax},
      {{"FENCE.SET", "fleet", "f", "POLYGON", "-1", "0"},
       "-ERR value is not an integer or out of range"},
      {{"FENCE.SET", "fleet", "f", "POLYGON", "2", "0", "0", "1", "1"},
       "-ERR polygon"},
      {{"FENCE.SET", "fleet", "f", "POLYGON", "3", "0", "0", "1", "0", "0", "1",
        "HOLE"},
       kSyntax},
      {With(kDepot, {"DETECT", "enter,leave"}),
       "-ERR unknown fence event 'leave'"},
      {With(kDepot, {"DETECT", "enter,,exit"}), "-ERR unknown fence event ''"},
      {With(kDepot, {"DETECT", "kind_unspecified"}),
       "-ERR unknown fence event"},
      {With(kDepot, {"DETECT", "dwell"}), "-ERR dwell_ms"},
      {With(kDepot, {"DWELL", "-1"}),
       "-ERR value is not an integer or out of range"},
      {With(kDepot, {"DEBOUNCE", "2"}), kSyntax},
      {With(kDepot, {"MAXACCURACY", "nan"}), "-ERR value is not a valid float"},
      {With(kDepot, {"MAXACCURACY", "-1"}), "-ERR max_accuracy_m"},
      {With(kDepot, {"LATE", "keep"}), kSyntax},
      {With(kDepot, {"MATCH"}), kSyntax},
      {With(kDepot, {"MATCH", std::string(1025, 'e')}), "-ERR entity_glob"},
      {With(kDepot, {"NOSUCH"}), kSyntax},
      {{"FENCE.SET", "fleet", "", "CIRCLE", "1", "2", "3", "m"},
       "-ERR fence name must be 1 to 1024 bytes"},
      {{"FENCE.SET", "fleet", "\xff", "CIRCLE", "1", "2", "3", "m"},
       "-ERR fence name must be UTF-8"},
      {With(kDepot, {"MATCH", "\xfe*"}), "-ERR entity_glob must be UTF-8"},
      {{"FENCE.SET", std::string(1025, 'k'), "f", "CIRCLE", "1", "2", "3", "m"},
       "-ERR GEO key"},
      {{"FENCE.GET", "fleet", std::string(1025, 'f')},
       "-ERR fence name must be"},
      {{"FENCE.DEL", "fleet", "f", ""}, "-ERR fence name must be"},
      {{"FENCE.STATE", "fleet", "nope"}, "-ERR no fence 'nope' on this key"},
      {{"FENCE.EVENTS", "fleet", "-1"},
       "-ERR value is not an integer or out of range"},
      {{"FENCE.EVENTS", "fleet", "0", "COUNT"}, kSyntax},
      {{"FENCE.EVENTS", "fleet", "0", "LIMIT", "5"}, kSyntax},
      {{"FENCE.EVENTS", "fleet", "0", "COUNT", "0"},
       "-ERR COUNT must be 1 to 1000"},
      {{"FENCE.EVENTS", "fleet", "0", "COUNT", "1001"},
       "-ERR COUNT must be 1 to 1000"},
      {{"FENCE.SET", "fleet", "f"}, "-ERR wrong number of arguments"},
  };
  ASSERT_EQ(c.Call({"FENCE.SET", "fleet", "kept", "CIRCLE", "1", "2", "3", "km",
                    "DETECT", "inside"}),
            ":1\r\n");
  const std::string kept = c.Call({"FENCE.GET", "fleet", "kept"});
  for (const BadRequest& r : bad) {
    const std::string reply = c.Call(r.argv);
    EXPECT_THAT(reply, StartsWith(r.error)) << ::testing::PrintToString(r.argv);
    EXPECT_EQ(c.Call({"FENCE.LIST", "fleet"}), "*1\r\n$4\r\nkept\r\n");
  }
  // A bad replacement leaves the fence as it was.
  EXPECT_THAT(c.Call({"FENCE.SET", "fleet", "kept", "CIRCLE", "1", "2", "3",
                      "km", "DETECT", "nope"}),
              StartsWith("-ERR"));
  EXPECT_EQ(c.Call({"FENCE.GET", "fleet", "kept"}), kept);
  EXPECT_EQ(c.Call({"PING"}), "+PONG\r\n");
}

TEST(FenceCommandsTest, RoamingFenceBetweenMembers) {
  TrackdbResp server;
  RawClient c(server.port());
  // Within 300 m of another member of the same key.
  ASSERT_EQ(c.Call({"FENCE.SET", "fleet", "close", "ROAM", "fleet", "*", "300",
                    "m", "DETECT", "enter,exit"}),
            ":1\r\n");
  EXPECT_THAT(c.Call({"FENCE.GET", "fleet", "close"}),
              HasSubstr("\"roam\":{\"entityGlob\":\"*\",\"radiusM\":300}"));
  ASSERT_EQ(c.Call({"GEOADD", "fleet", "13.40", "52.52", "bus3"}), ":1\r\n");
  ASSERT_EQ(c.Call({"GEOADD", "fleet", "13.40", "52.53", "truck7"}), ":1\r\n");
  ASSERT_EQ(c.Call({"GEOADD", "fleet", "13.40", "52.521", "truck7"}), ":0\r\n");
  const std::string events = c.Call({"FENCE.EVENTS", "fleet", "0"});
  EXPECT_THAT(events, HasSubstr("\"kind\":\"FENCE_EVENT_ENTER\""));
  EXPECT_THAT(events, HasSubstr("\"nearby\":\"bus3\""));
  EXPECT_THAT(events, HasSubstr("\"nearbyDistanceM\":111."));
  EXPECT_EQ(c.Call({"FENCE.STATE", "fleet", "close"}),
            "*1\r\n$6\r\ntruck7\r\n");
  // Another key as the targets; from another database only its own key.
  EXPECT_EQ(
      c.Call({"FENCE.SET", "cars", "depot", "ROAM", "depots", "d*", "1", "km"}),
      ":1\r\n");
  auto stored = server.store().fences().Get("cars", "depot");
  ASSERT_TRUE(stored.ok() && stored->has_value());
  EXPECT_EQ((*stored)->roam().collection(), "depots");
  EXPECT_EQ((*stored)->roam().radius_m(), 1000);
  ASSERT_EQ(c.Call({"SELECT", "2"}), "+OK\r\n");
  EXPECT_EQ(c.Call({"FENCE.SET", "cars", "d", "ROAM", "cars", "*", "1", "km"}),
            ":1\r\n");
  EXPECT_THAT(
      c.Call({"FENCE.SET", "cars", "d", "ROAM", "depots", "*", "1", "km"}),
      StartsWith("-ERR ROAM key must be the fence's own key"));
  EXPECT_EQ(c.Call({"FENCE.SET", "cars", "d", "ROAM", "cars", "*", "-1", "km"}),
            "-ERR radius cannot be negative\r\n");
  EXPECT_EQ(c.Call({"FENCE.SET", "cars", "d", "ROAM", "cars", "*", "0", "km"}),
            "-ERR roam.radius_m must be a number > 0, got 0\r\n");
  EXPECT_EQ(c.Call({"FENCE.SET", "cars", "d", "ROAM", "cars", "*", "1"}),
            "-ERR syntax error\r\n");
  EXPECT_THAT(c.Call({"FENCE.SET", "cars", "d", "ROAM", "cars", "*", "1", "km",
                      "DETECT", "cross"}),
              StartsWith("-ERR detect[0]: CROSS is not defined"));
}

TEST(FenceCommandsTest, WhereAndWhereInFilterTheFixes) {
  TrackdbResp server;
  RawClient c(server.port());
  ASSERT_EQ(c.Call(With(kDepot, {"WHERE", "speed_kmh", "5", "+inf", "WHEREIN",
                                 "load", "2", "full", "half"})),
            ":1\r\n");
  auto stored = server.store().fences().Get("fleet", "depot");
  ASSERT_TRUE(stored.ok() && stored->has_value());
  ASSERT_EQ((*stored)->where_size(), 2);
  EXPECT_EQ((*stored)->where(0).min(), 5);
  EXPECT_FALSE((*stored)->where(0).has_max());
  EXPECT_THAT((*stored)->where(1).in(), ::testing::ElementsAre("full", "half"));
  // A GEOADD member has no speed: its fixes do not count.
  ASSERT_EQ(c.Call({"GEOADD", "fleet", "13.40", "52.52", "truck7"}), ":1\r\n");
  EXPECT_EQ(c.Call({"FENCE.STATE", "fleet", "depot"}), "*0\r\n");
  // A gRPC point with both counts.
  model::TrackPoint p;
  p.entity = "bus3";
  p.loc_time_ms = 1700000000000;
  p.lat = 52.52;
  p.lon = 13.40;
  p.speed_kmh = 30;
  p.attributes = {{"load", "half"}};
  ASSERT_TRUE(server.store().AddPoints("fleet", {p}).ok());
  EXPECT_EQ(c.Call({"FENCE.STATE", "fleet", "depot"}), "*1\r\n$4\r\nbus3\r\n");
  EXPECT_EQ(c.Call(With(kDepot, {"WHERE", "speed_kmh", "x", "1"})),
            "-ERR value is not a valid float\r\n");
  EXPECT_EQ(c.Call(With(kDepot, {"WHERE", "speed_kmh", "9", "1"})),
            "-ERR where[0]: min and max must be numbers, min <= max\r\n");
  EXPECT_EQ(c.Call(With(kDepot, {"WHEREIN", "speed_kmh", "1", "9"})),
            "-ERR where[0].in: speed_kmh is a number: give min and max\r\n");
  EXPECT_EQ(c.Call(With(kDepot, {"WHEREIN", "load", "3", "a", "b"})),
            "-ERR syntax error\r\n");
  EXPECT_EQ(c.Call(With(kDepot, {"WHEREIN", "load", "0"})),
            "-ERR value is not an integer or out of range\r\n");
  EXPECT_EQ((*server.store().fences().Get("fleet", "depot"))->where_size(), 2)
      << "refused requests changed nothing";
}

}  // namespace
}  // namespace trackdb::resp
