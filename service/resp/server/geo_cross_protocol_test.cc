// One store, two protocols: a GEO key in database 0 is the gRPC collection of
// the same name. The RESP server runs on the in-process gRPC server's store;
// a real redis-server, fed the same positions by GEOADD, says what the RESP
// replies must be.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "model/track_point.h"
#include "model/clock.h"
#include "service/resp/server/resp_server.h"
#include "service/resp/testing/resp_test_client.h"
#include "service/grpc/test_server.h"
#include "trackdb/v1/track_service.grpc.pb.h"

namespace trackdb::resp {
namespace {

using service::testing::MakePoint;
using ::testing::ElementsAre;

// All of a double's digits (absl::StrCat keeps only six).
std::string Exact(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.17g", v);
  return buf;
}

class CrossProtocolTest : public ::testing::Test {
 protected:
  CrossProtocolTest() {
    v1::TrackdbConfig config;
    config.mutable_server()->set_resp_bind_address("127.0.0.1");
    config.mutable_server()->set_resp_port(0);
    config.mutable_server()->set_resp_threads(2);
    config.mutable_server()->set_resp_max_multibulk_len(1024 * 1024);
    auto server = RespServer::Start(config, &grpc_.store());
    if (!server.ok()) {
      ADD_FAILURE() << server.status();
      std::abort();
    }
    resp_server_ = *std::move(server);
    resp_ = std::make_unique<testing::RawClient>(resp_server_->port());
    redis_ = std::make_unique<testing::RawClient>(redis_server_.port());
  }
  ~CrossProtocolTest() override { resp_server_->Shutdown(); }

  grpc::Status AddPoints(const std::string& collection,
                         const std::vector<v1::Point>& points) {
    v1::AddPointsRequest req;
    req.set_collection(collection);
    for (const auto& p : points) *req.add_points() = p;
    v1::AddPointsResponse resp;
    grpc::ClientContext ctx;
    return grpc_.stub().AddPoints(&ctx, req, &resp);
  }

  v1::SearchResponse SearchRadius(const std::string& collection, double lat,
                                  double lon, double radius_m) {
    v1::SearchRadiusRequest req;
    req.set_collection(collection);
    req.mutable_center()->set_latitude(lat);
    req.mutable_center()->set_longitude(lon);
    req.set_radius_m(radius_m);
    v1::SearchResponse resp;
    grpc::ClientContext ctx;
    grpc::Status s = grpc_.stub().SearchRadius(&ctx, req, &resp);
    EXPECT_TRUE(s.ok()) << s.error_message();
    return resp;
  }

  std::vector<std::string> Ids(const v1::SearchResponse& r) {
    std::vector<std::string> ids;
    for (const auto& h : r.hits()) ids.push_back(h.point().entity_id());
    return ids;
  }

  // Sends `argv` to trackdb (over RESP) and to redis-server, and expects the
  // same bytes.
  void ExpectSameReply(const std::vector<std::string>& argv) {
    EXPECT_EQ(resp_->Call(argv), redis_->Call(argv))
        << ::testing::PrintToString(argv);
  }

  service::testing::TestServer grpc_;
  testing::RedisServerProcess redis_server_;
  std::unique_ptr<RespServer> resp_server_;
  std::unique_ptr<testing::RawClient> resp_;
  std::unique_ptr<testing::RawClient> redis_;
};

TEST_F(CrossProtocolTest, GeoaddIsSeenByGrpcSearches) {
  EXPECT_EQ(resp_->Call({"GEOADD", "fleet", "116.4", "39.9", "car7", "116.401",
                         "39.902", "bus2", "2.35", "48.85", "paris"}),
            ":3\r\n");
  const v1::SearchResponse r = SearchRadius("fleet", 39.9, 116.4, 500);
  EXPECT_THAT(Ids(r), ElementsAre("car7", "bus2"));
  // gRPC sees the exact positions GEOADD was given, not Redis's cell centres.
  ASSERT_EQ(r.hits_size(), 2);
  EXPECT_EQ(r.hits(1).point().latitude(), 39.902);
  EXPECT_EQ(r.hits(1).point().longitude(), 116.401);
  // A key of another database is not a gRPC collection.
  EXPECT_EQ(resp_->Call({"SELECT", "1"}), "+OK\r\n");
  EXPECT_EQ(resp_->Call({"GEOADD", "db1fleet", "116.4", "39.9", "x"}),
            ":1\r\n");
  EXPECT_TRUE(SearchRadius("db1fleet", 39.9, 116.4, 500).hits().empty());
}

TEST_F(CrossProtocolTest, GrpcPointsAnswerRespLikeGeoaddedOnes) {
  const int64_t now = NowMs();
  const struct {
    const char* id;
    double lat, lon;
  } points[] = {{"truck", 39.9005, 116.4005}, {"van", 39.91, 116.39},
                {"bike", 39.95, 116.45},      {"boat", -33.86, 151.21},
                {"east", 0.5, 180},           {"west", -0.5, -180},
                {"edge", 85.05112878, 10}};
  std::vector<v1::Point> grpc_points;
  std::vector<std::string> geoadd = {"GEOADD", "fleet"};
  for (const auto& p : points) {
    grpc_points.push_back(MakePoint(p.id, now, p.lat, p.lon));
    geoadd.insert(geoadd.end(), {Exact(p.lon), Exact(p.lat), p.id});
  }
  ASSERT_TRUE(AddPoints("fleet", grpc_points).ok());
  // Positions Redis cannot hold, which no door takes but a store written
  // before every door took Redis's range may have: skipped by RESP.
  model::TrackPoint pole{"north_pole", now, 90, 0};
  model::TrackPoint ship{"polar_ship", now, -88.2, 45};
  ASSERT_TRUE(grpc_.store().AddPoints("fleet", {pole, ship}).ok());
  EXPECT_EQ(redis_->Call(geoadd), absl::StrCat(":", std::size(points), "\r\n"));

  const std::vector<std::vector<std::string>> commands = {
      {"GEOSEARCH", "fleet", "FROMLONLAT", "116.4", "39.9", "BYRADIUS", "1",
       "km", "ASC", "WITHDIST", "WITHCOORD", "WITHHASH"},
      {"GEOSEARCH", "fleet", "FROMMEMBER", "van", "BYBOX", "20", "20", "km",
       "DESC", "WITHDIST"},
      {"GEORADIUS", "fleet", "180", "0", "200", "km", "WITHDIST"},
      {"GEOSEARCH", "fleet", "FROMLONLAT", "0", "0", "BYRADIUS", "25000", "km",
       "ASC"},
      {"GEOPOS", "fleet", "truck", "east", "west", "north_pole", "edge"},
      {"GEODIST", "fleet", "truck", "van", "km"},
      {"GEOHASH", "fleet", "truck", "boat", "polar_ship"},
      {"ZRANGE", "fleet", "0", "-1", "WITHSCORES"},
      {"ZSCORE", "fleet", "boat"},
      {"ZRANK", "fleet", "bike"},
  };
  for (const auto& c : commands) ExpectSameReply(c);
  // ZCARD counts every entity, the polar ones too.
  EXPECT_EQ(resp_->Call({"ZCARD", "fleet"}),
            absl::StrCat(":", std::size(points) + 2, "\r\n"));
}

// GEOSEARCH BYPOLYGON and gRPC SearchPolygon use one polygon code: on
// members GEOADDed away from the edges (where a member's decoded position
// and the position it was added at could fall on different sides), they
// find the same members. An L-shaped (concave) polygon.
TEST_F(CrossProtocolTest, BypolygonFindsWhatSearchPolygonFinds) {
  const double lons[] = {116.30, 116.40, 116.40, 116.35, 116.35, 116.30};
  const double lats[] = {39.90, 39.90, 39.95, 39.95, 40.00, 40.00};
  std::vector<std::string> search = {"GEOSEARCH", "fleet", "BYPOLYGON", "6"};
  v1::SearchPolygonRequest req;
  req.set_collection("fleet");
  req.mutable_filter()->set_page_size(1000);
  for (int i = 0; i < 6; ++i) {
    search.push_back(Exact(lons[i]));
    search.push_back(Exact(lats[i]));
    v1::LatLng* v = req.add_vertices();
    v->set_latitude(lats[i]);
    v->set_longitude(lons[i]);
  }
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> lon(116.28, 116.42);
  std::uniform_real_distribution<double> lat(39.88, 40.02);
  auto near_edge = [](double v, std::initializer_list<double> lines) {
    for (double line : lines) {
      if (std::abs(v - line) < 1e-4) return true;
    }
    return false;
  };
  std::vector<std::string> geoadd = {"GEOADD", "fleet"};
  int added = 0;
  while (added < 500) {
    const double x = lon(rng), y = lat(rng);
    if (near_edge(x, {116.30, 116.35, 116.40}) ||
        near_edge(y, {39.90, 39.95, 40.00})) {
      continue;
    }
    geoadd.insert(geoadd.end(),
                  {Exact(x), Exact(y), absl::StrCat("v", added++)});
  }
  ASSERT_EQ(resp_->Call(geoadd), ":500\r\n");

  v1::SearchResponse grpc_hits;
  grpc::ClientContext ctx;
  ASSERT_TRUE(grpc_.stub().SearchPolygon(&ctx, req, &grpc_hits).ok());
  std::vector<std::string> expected = Ids(grpc_hits);
  std::sort(expected.begin(), expected.end());
  ASSERT_GT(expected.size(), 100u);
  ASSERT_LT(expected.size(), 400u);

  const std::string reply = resp_->Call(search);
  std::vector<std::string> found;
  for (size_t at = reply.find("\r\nv"); at != std::string::npos;
       at = reply.find("\r\nv", at + 2)) {
    found.push_back(reply.substr(at + 2, reply.find('\r', at + 2) - at - 2));
  }
  std::sort(found.begin(), found.end());
  EXPECT_EQ(found, expected);
  EXPECT_EQ(reply.substr(0, reply.find('\r')),
            absl::StrCat("*", expected.size()));
}

// A key has one type on both doors: gRPC's points are refused on a name
// that holds a Redis string or hash, with Redis's WRONGTYPE, and write
// nothing.
TEST_F(CrossProtocolTest, GrpcPointsAreRefusedOnAKeyOfAnotherType) {
  ASSERT_EQ(resp_->Call({"SET", "s", "v"}), "+OK\r\n");
  ASSERT_EQ(resp_->Call({"HSET", "h", "f", "v"}), ":1\r\n");
  for (const char* key : {"s", "h"}) {
    grpc::Status s = AddPoints(key, {MakePoint("a", NowMs(), 1, 2)});
    EXPECT_EQ(s.error_code(), grpc::StatusCode::FAILED_PRECONDITION) << key;
    EXPECT_THAT(s.error_message(), ::testing::HasSubstr("WRONGTYPE")) << key;
  }
  EXPECT_EQ(resp_->Call({"TYPE", "s"}), "+string\r\n");
  EXPECT_EQ(resp_->Call({"TYPE", "h"}), "+hash\r\n");
  EXPECT_EQ(resp_->Call({"GET", "s"}), "$1\r\nv\r\n");
}

TEST_F(CrossProtocolTest, ZremDeletesTheEntityForGrpcToo) {
  ASSERT_TRUE(AddPoints("fleet", {MakePoint("a", NowMs() - 1000, 10, 10),
                                  MakePoint("a", NowMs() - 500, 10.1, 10),
                                  MakePoint("b", NowMs(), 11, 11)})
                  .ok());
  EXPECT_EQ(resp_->Call({"ZREM", "fleet", "a", "nope"}), ":1\r\n");
  v1::GetLatestRequest get;
  get.set_collection("fleet");
  get.add_entity_ids("a");
  get.add_entity_ids("b");
  v1::GetLatestResponse latest;
  grpc::ClientContext ctx;
  ASSERT_TRUE(grpc_.stub().GetLatest(&ctx, get, &latest).ok());
  EXPECT_THAT(latest.missing_entity_ids(), ElementsAre("a"));
  // Its history went with it.
  v1::GetTrackRequest track;
  track.set_collection("fleet");
  track.set_entity_id("a");
  v1::GetTrackResponse points;
  grpc::ClientContext ctx2;
  ASSERT_TRUE(grpc_.stub().GetTrack(&ctx2, track, &points).ok());
  EXPECT_EQ(points.points_size(), 0);
}

TEST_F(CrossProtocolTest, GeoaddDoesNotMoveAMemberWithANewerGrpcPoint) {
  // A tracker's clock an hour ahead: its point stays the latest.
  const int64_t ahead = NowMs() + 3600 * 1000;
  ASSERT_TRUE(AddPoints("fleet", {MakePoint("car", ahead, 10, 20)}).ok());
  EXPECT_EQ(resp_->Call({"GEOADD", "fleet", "CH", "30", "40", "car"}),
            ":0\r\n");
  EXPECT_EQ(redis_->Call({"GEOADD", "fleet", "20", "10", "car"}), ":1\r\n");
  ExpectSameReply({"GEOPOS", "fleet", "car"});
  // The GEOADD's point is kept in the history.
  v1::GetTrackRequest track;
  track.set_collection("fleet");
  track.set_entity_id("car");
  v1::GetTrackResponse points;
  grpc::ClientContext ctx;
  ASSERT_TRUE(grpc_.stub().GetTrack(&ctx, track, &points).ok());
  EXPECT_EQ(points.points_size(), 2);
}

}  // namespace
}  // namespace trackdb::resp
