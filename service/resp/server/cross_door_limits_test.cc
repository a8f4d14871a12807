// The same input gets the same verdict through every door: each boundary
// case of model/limits.h is sent as a gRPC AddPoint and as a RESP GEOADD
// (and a search radius as SearchRadius and GEOSEARCH BYRADIUS) on one store;
// both accept it or both refuse it, and a refused one writes nothing.
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "conf/config.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "model/limits.h"
#include "service/resp/server/resp_server.h"
#include "service/resp/testing/resp_test_client.h"
#include "service/grpc/test_server.h"
#include "trackdb/v1/track_service.grpc.pb.h"

namespace trackdb::resp {
namespace {

constexpr double kMaxRadiusM = 5000;

std::string Exact(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.17g", v);
  return buf;
}

struct PointCase {
  std::string name;
  std::string collection;
  std::string entity;
  double lat;
  double lon;
  bool valid;
};

// proto3 cannot tell an empty string from an unset field, so gRPC requires
// names; the empty key and member are Redis's, and RESP takes them.
bool EmptyName(const PointCase& c) {
  return c.collection.empty() || c.entity.empty();
}

std::vector<PointCase> PointCases() {
  const std::string max_c(model::kMaxCollectionBytes, 'c');
  const std::string max_e(model::kMaxEntityIdBytes, 'e');
  return {
      {"plain", "fleet", "car", 39.9, 116.4, true},
      {"collection at its limit", max_c, "car", 1, 1, true},
      {"collection over its limit", max_c + "c", "car", 1, 1, false},
      {"empty collection", "", "car", 1, 1, true},
      {"entity at its limit", "fleet", max_e, 1, 1, true},
      {"entity over its limit", "fleet", max_e + "e", 1, 1, false},
      {"empty entity", "fleet", "", 1, 1, true},
      {"entity with a NUL byte", "fleet", std::string("a\0b", 3), 1, 1, true},
      {"latitude at Redis's north edge", "fleet", "n", model::kMaxLatitude, 0,
       true},
      {"latitude past Redis's north edge", "fleet", "n2", 85.06, 0, false},
      {"latitude at a pole", "fleet", "pole", -90, 0, false},
      {"longitude at 180", "fleet", "e", 0, 180, true},
      {"longitude past 180", "fleet", "e2", 0, 180.0001, false},
  };
}

class CrossDoorLimitsTest : public ::testing::Test {
 protected:
  static v1::TrackdbConfig Config() {
    v1::TrackdbConfig config;
    config.mutable_server()->set_resp_bind_address("127.0.0.1");
    config.mutable_server()->set_resp_port(0);
    config.mutable_server()->set_resp_threads(1);
    config.mutable_limits()->set_max_radius_m(kMaxRadiusM);
    return conf::WithDefaults(config);
  }

  CrossDoorLimitsTest() : grpc_(Config()) {
    auto server = RespServer::Start(Config(), &grpc_.store());
    if (!server.ok()) {
      ADD_FAILURE() << server.status();
      std::abort();
    }
    resp_server_ = *std::move(server);
    resp_ = std::make_unique<testing::RawClient>(resp_server_->port());
  }
  ~CrossDoorLimitsTest() override { resp_server_->Shutdown(); }

  grpc::Status GrpcAdd(const PointCase& c) {
    v1::AddPointRequest req;
    req.set_collection(c.collection);
    v1::Point* p = req.mutable_point();
    p->set_entity_id(c.entity);
    p->set_loc_time_ms(1700000000000);
    p->set_latitude(c.lat);
    p->set_longitude(c.lon);
    v1::AddPointResponse resp;
    grpc::ClientContext ctx;
    return grpc_.stub().AddPoint(&ctx, req, &resp);
  }

  // Whether the entity has a latest point, asked through gRPC (a valid
  // collection) or storage (any name).
  bool Stored(const std::string& collection, const std::string& entity) {
    auto latest = grpc_.store().GetLatest(collection, entity);
    EXPECT_TRUE(latest.ok()) << latest.status();
    return latest.ok() && latest->has_value();
  }

  service::testing::TestServer grpc_;
  std::unique_ptr<RespServer> resp_server_;
  std::unique_ptr<testing::RawClient> resp_;
};

TEST_F(CrossDoorLimitsTest, PointsGetTheSameVerdictThroughBothDoors) {
  for (const PointCase& c : PointCases()) {
    SCOPED_TRACE(c.name);
    const grpc::Status g = GrpcAdd(c);
    const bool grpc_valid = c.valid && !EmptyName(c);
    EXPECT_EQ(g.ok(), grpc_valid) << g.error_message();
    if (!grpc_valid) {
      EXPECT_EQ(g.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    }
    EXPECT_EQ(Stored(c.collection, c.entity), grpc_valid);
    // RESP writes to a sibling key of the same length ("r" for its first
    // byte), so each door's write is seen on its own.
    std::string key = c.collection;
    if (!key.empty()) key[0] = 'r';
    const std::string reply =
        resp_->Call({"GEOADD", key, Exact(c.lon), Exact(c.lat), c.entity});
    EXPECT_EQ(reply == ":1\r\n", c.valid) << reply;
    if (!c.valid) EXPECT_EQ(reply.substr(0, 5), "-ERR ") << reply;
    EXPECT_EQ(Stored(key, c.entity), c.valid);
  }
}

TEST_F(CrossDoorLimitsTest, SearchRadiusGetsTheSameVerdictThroughBothDoors) {
  ASSERT_TRUE(GrpcAdd({"", "fleet", "car", 39.9, 116.4, true}).ok());
  const struct {
    double radius_m;
    bool valid;
  } cases[] = {{0, true}, {kMaxRadiusM, true}, {kMaxRadiusM + 1, false}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.radius_m);
    v1::SearchRadiusRequest req;
    req.set_collection("fleet");
    req.mutable_center()->set_latitude(39.9);
    req.mutable_center()->set_longitude(116.4);
    req.set_radius_m(c.radius_m);
    v1::SearchResponse resp;
    grpc::ClientContext ctx;
    const grpc::Status g = grpc_.stub().SearchRadius(&ctx, req, &resp);
    EXPECT_EQ(g.ok(), c.valid) << g.error_message();
    const std::string reply =
        resp_->Call({"GEOSEARCH", "fleet", "FROMLONLAT", "116.4", "39.9",
                     "BYRADIUS", Exact(c.radius_m), "m"});
    EXPECT_EQ(reply.substr(0, 1) == "*", c.valid) << reply;
  }
  // A negative radius keeps Redis's own words on RESP.
  EXPECT_EQ(resp_->Call({"GEOSEARCH", "fleet", "FROMLONLAT", "116.4", "39.9",
                         "BYRADIUS", "-1", "m"}),
            "-ERR radius cannot be negative\r\n");
}

}  // namespace
}  // namespace trackdb::resp
