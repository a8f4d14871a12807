// Integration tests: every RPC over a real gRPC channel to an in-process
// server on a free port.
#include <random>
#include <set>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "grpc/reflection/v1alpha/reflection.pb.h"
#include "grpcpp/support/sync_stream.h"
#include "gtest/gtest.h"
#include "index/distance.h"
#include "model/limits.h"
#include "service/grpc/test_server.h"

namespace trackdb::service {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::MakePoint;

constexpr int64_t kT0 = 1700000000000;  // 2023-11-14, inside the time window

class TrackServiceTest : public ::testing::Test {
 protected:
  grpc::Status Add(const std::string& collection,
                   std::vector<v1::Point> points) {
    v1::AddPointsRequest req;
    req.set_collection(collection);
    for (auto& p : points) *req.add_points() = p;
    v1::AddPointsResponse resp;
    grpc::ClientContext ctx;
    return server_.stub().AddPoints(&ctx, req, &resp);
  }

  std::vector<std::string> Ids(const v1::SearchResponse& r) {
    std::vector<std::string> ids;
    for (const auto& h : r.hits()) ids.push_back(h.point().entity_id());
    return ids;
  }

  grpc::Status RadiusCall(double lat, double lon, double r,
                          const v1::SearchFilter& filter,
                          v1::SearchResponse* resp) {
    v1::SearchRadiusRequest req;
    req.set_collection("fleet");
    req.mutable_center()->set_latitude(lat);
    req.mutable_center()->set_longitude(lon);
    req.set_radius_m(r);
    *req.mutable_filter() = filter;
    grpc::ClientContext ctx;
    return server_.stub().SearchRadius(&ctx, req, resp);
  }

  v1::SearchResponse Radius(double lat, double lon, double r,
                            v1::SearchFilter filter = {}) {
    v1::SearchResponse resp;
    grpc::Status s = RadiusCall(lat, lon, r, filter, &resp);
    EXPECT_TRUE(s.ok()) << s.error_message();
    return resp;
  }

  v1::SearchResponse Bounds(double s, double w, double n, double e) {
    v1::SearchBoundsRequest req;
    req.set_collection("fleet");
    req.mutable_south_west()->set_latitude(s);
    req.mutable_south_west()->set_longitude(w);
    req.mutable_north_east()->set_latitude(n);
    req.mutable_north_east()->set_longitude(e);
    v1::SearchResponse resp;
    grpc::ClientContext ctx;
    grpc::Status st = server_.stub().SearchBounds(&ctx, req, &resp);
    EXPECT_TRUE(st.ok()) << st.error_message();
    return resp;
  }

  testing::TestServer server_;
};

TEST_F(TrackServiceTest, AddPointThenGetLatest) {
  v1::AddPointRequest req;
  req.set_collection("fleet");
  *req.mutable_point() = MakePoint("car", kT0, 39.9, 116.4);
  req.mutable_point()->set_speed_kmh(42);
  (*req.mutable_point()->mutable_attributes())["driver"] = "ana";
  v1::AddPointResponse resp;
  grpc::ClientContext ctx;
  ASSERT_TRUE(server_.stub().AddPoint(&ctx, req, &resp).ok());

  v1::GetLatestRequest get;
  get.set_collection("fleet");
  get.add_entity_ids("car");
  get.add_entity_ids("ghost");
  v1::GetLatestResponse latest;
  grpc::ClientContext ctx2;
  ASSERT_TRUE(server_.stub().GetLatest(&ctx2, get, &latest).ok());
  ASSERT_EQ(latest.points_size(), 1);
  EXPECT_EQ(latest.points(0).speed_kmh(), 42);
  EXPECT_EQ(latest.points(0).attributes().at("driver"), "ana");
  EXPECT_FALSE(latest.points(0).has_direction());
  EXPECT_THAT(latest.missing_entity_ids(), ElementsAre("ghost"));
}

TEST_F(TrackServiceTest, AddPointsOfManyEntitiesAndOutOfOrder) {
  ASSERT_TRUE(
      Add("fleet", {MakePoint("a", kT0 + 10, 1, 1), MakePoint("b", kT0, 2, 2),
                    MakePoint("a", kT0 + 5, 3, 3)})
          .ok());
  auto a = server_.store().GetLatest("fleet", "a");
  EXPECT_EQ((*a)->loc_time_ms, kT0 + 10);  // the older point is history only
  v1::GetTrackRequest track;
  track.set_collection("fleet");
  track.set_entity_id("a");
  v1::GetTrackResponse resp;
  grpc::ClientContext ctx;
  ASSERT_TRUE(server_.stub().GetTrack(&ctx, track, &resp).ok());
  ASSERT_EQ(resp.points_size(), 2);
  EXPECT_EQ(resp.points(0).loc_time_ms(), kT0 + 5);
}

TEST_F(TrackServiceTest, ABatchWithOneBadPointWritesNothing) {
  grpc::Status s =
      Add("fleet", {MakePoint("a", kT0, 1, 1), MakePoint("b", kT0, 1, 1),
                    MakePoint("c", kT0, 95, 1)});
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(s.error_message(), HasSubstr("points[2].latitude"));
  EXPECT_FALSE(server_.store().GetLatest("fleet", "a")->has_value());
  EXPECT_FALSE(server_.store().GetLatest("fleet", "b")->has_value());
}

TEST_F(TrackServiceTest, InvalidPointsNameTheField) {
  struct Case {
    v1::Point point;
    std::string field;
  };
  std::vector<Case> cases;
  cases.push_back({MakePoint("x", kT0, -90.5, 0), "points[0].latitude"});
  cases.push_back({MakePoint("x", kT0, 0, 180.5), "points[0].longitude"});
  cases.push_back({MakePoint("x", kT0, NAN, 0), "points[0].latitude"});
  cases.push_back({MakePoint("x", kT0, 0, INFINITY), "points[0].longitude"});
  cases.push_back({MakePoint("", kT0, 0, 0), "points[0].entity_id"});
  cases.push_back(
      {MakePoint(std::string(model::kMaxEntityIdBytes + 1, 'x'), kT0, 0, 0),
       "points[0].entity_id"});
  cases.push_back({MakePoint("x", 0, 0, 0), "points[0].loc_time_ms"});
  cases.push_back({MakePoint("x", kT0 / 1000, 0, 0), "points[0].loc_time_ms"});
  cases.push_back(
      {MakePoint("x", 4102444800000, 0, 0), "points[0].loc_time_ms"});
  v1::Point bad_speed = MakePoint("x", kT0, 0, 0);
  bad_speed.set_speed_kmh(-1);
  cases.push_back({bad_speed, "points[0].speed_kmh"});
  v1::Point bad_direction = MakePoint("x", kT0, 0, 0);
  bad_direction.set_direction(360);
  cases.push_back({bad_direction, "points[0].direction"});
  v1::Point bad_accuracy = MakePoint("x", kT0, 0, 0);
  bad_accuracy.set_accuracy_m(NAN);
  cases.push_back({bad_accuracy, "points[0].accuracy_m"});
  for (const Case& c : cases) {
    grpc::Status s = Add("fleet", {c.point});
    EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << c.field;
    EXPECT_THAT(s.error_message(), HasSubstr(c.field));
  }
  EXPECT_THAT(Add("", {MakePoint("x", kT0, 0, 0)}).error_message(),
              HasSubstr("collection"));
  EXPECT_THAT(Add("fleet", {}).error_message(), HasSubstr("points"));
}

TEST_F(TrackServiceTest, BatchOverTheConfiguredMaximumIsRejected) {
  v1::TrackdbConfig config;
  config.mutable_limits()->set_max_batch_points(1000);
  testing::TestServer small(config);
  v1::AddPointsRequest req;
  req.set_collection("fleet");
  for (int i = 0; i < 1000; ++i) {
    *req.add_points() = MakePoint(absl::StrCat("e", i), kT0, 1, 1);
  }
  v1::AddPointsResponse resp;
  {
    grpc::ClientContext ctx;
    ASSERT_TRUE(small.stub().AddPoints(&ctx, req, &resp).ok());
    EXPECT_EQ(resp.stored(), 1000u);
  }
  *req.add_points() = MakePoint("one-too-many", kT0, 1, 1);
  grpc::ClientContext ctx;
  grpc::Status s = small.stub().AddPoints(&ctx, req, &resp);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(s.error_message(), HasSubstr("at most 1000"));
  EXPECT_FALSE(small.store().GetLatest("fleet", "one-too-many")->has_value());
}

TEST_F(TrackServiceTest, StreamPointsAcknowledgesStoredCount) {
  grpc::ClientContext ctx;
  v1::StreamPointsResponse resp;
  auto writer = server_.stub().StreamPoints(&ctx, &resp);
  for (int m = 0; m < 5; ++m) {
    v1::StreamPointsRequest req;
    if (m == 0) req.set_collection("fleet");  // later messages keep it
    for (int i = 0; i < 10; ++i) {
      *req.add_points() = MakePoint("tracker", kT0 + m * 10 + i, 1, 1);
    }
    ASSERT_TRUE(writer->Write(req));
  }
  writer->WritesDone();
  ASSERT_TRUE(writer->Finish().ok());
  EXPECT_EQ(resp.stored(), 50u);
  EXPECT_EQ((*server_.store().GetLatest("fleet", "tracker"))->loc_time_ms,
            kT0 + 49);
}

TEST_F(TrackServiceTest, StreamPointsStopsAtABadBatch) {
  grpc::ClientContext ctx;
  v1::StreamPointsResponse resp;
  auto writer = server_.stub().StreamPoints(&ctx, &resp);
  v1::StreamPointsRequest good;
  good.set_collection("fleet");
  *good.add_points() = MakePoint("t", kT0, 1, 1);
  writer->Write(good);
  v1::StreamPointsRequest bad;
  *bad.add_points() = MakePoint("t", kT0 + 1, 1, 200);
  writer->Write(bad);
  writer->WritesDone();
  grpc::Status s = writer->Finish();
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(s.error_message(), HasSubstr("message[1].points[0].longitude"));
  EXPECT_EQ((*server_.store().GetLatest("fleet", "t"))->loc_time_ms, kT0);
}

// A bad page token of any size is INVALID_ARGUMENT naming the field: the
// token is not echoed (64 KiB of it in the status message made gRPC answer
// RESOURCE_EXHAUSTED instead).
TEST_F(TrackServiceTest, AHugeBadPageTokenIsInvalidArgument) {
  ASSERT_TRUE(Add("fleet", {MakePoint("truck", kT0, 10, 20)}).ok());
  for (const std::string& token :
       {std::string("garbage"), std::string(64 << 10, '9')}) {
    v1::GetTrackRequest req;
    req.set_collection("fleet");
    req.set_entity_id("truck");
    req.set_start_time_ms(kT0);
    req.set_end_time_ms(kT0 + 1000);
    req.set_page_token(token);
    v1::GetTrackResponse resp;
    grpc::ClientContext ctx;
    const grpc::Status s = server_.stub().GetTrack(&ctx, req, &resp);
    EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_THAT(s.error_message(), HasSubstr("page_token"));
    EXPECT_LT(s.error_message().size(), 200u);
  }
}

TEST_F(TrackServiceTest, PagesThroughALargeTrack) {
  for (int chunk = 0; chunk < 5; ++chunk) {
    std::vector<v1::Point> points;
    for (int i = 0; i < 1000; ++i) {
      points.push_back(MakePoint("truck", kT0 + (chunk * 1000 + i) * 1000,
                                 10 + i * 1e-4, 20));
    }
    ASSERT_TRUE(Add("fleet", points).ok());
  }
  for (bool descending : {false, true}) {
    v1::GetTrackRequest req;
    req.set_collection("fleet");
    req.set_entity_id("truck");
    req.set_start_time_ms(kT0 + 500 * 1000);
    req.set_end_time_ms(kT0 + 4499 * 1000);
    req.set_page_size(1000);
    req.set_descending(descending);
    std::vector<int64_t> times;
    int pages = 0;
    do {
      v1::GetTrackResponse resp;
      grpc::ClientContext ctx;
      ASSERT_TRUE(server_.stub().GetTrack(&ctx, req, &resp).ok());
      for (const auto& p : resp.points()) times.push_back(p.loc_time_ms());
      req.set_page_token(resp.next_page_token());
      ++pages;
    } while (!req.page_token().empty());
    EXPECT_EQ(times.size(), 4000u);
    EXPECT_EQ(pages, 4);
    EXPECT_EQ(std::set<int64_t>(times.begin(), times.end()).size(), 4000u);
    EXPECT_EQ(times.front(), descending ? kT0 + 4499000 : kT0 + 500000);
  }
}

TEST_F(TrackServiceTest, GetTrackValidation) {
  v1::GetTrackRequest req;
  req.set_collection("fleet");
  v1::GetTrackResponse resp;
  auto call = [&]() {
    grpc::ClientContext ctx;
    return server_.stub().GetTrack(&ctx, req, &resp);
  };
  EXPECT_THAT(call().error_message(), HasSubstr("entity_id"));
  req.set_entity_id("car");
  req.set_page_size(1001);
  EXPECT_THAT(call().error_message(), HasSubstr("page_size"));
  req.set_page_size(10);
  req.set_start_time_ms(kT0);
  req.set_end_time_ms(kT0 - 1);
  EXPECT_THAT(call().error_message(), HasSubstr("start_time_ms"));
  req.set_end_time_ms(kT0 + 10);
  req.set_page_token("bogus");
  EXPECT_EQ(call().error_code(), grpc::StatusCode::INVALID_ARGUMENT);
}

TEST_F(TrackServiceTest, GetPositionAtInterpolatesOrTakesTheNearest) {
  ASSERT_TRUE(Add("fleet", {MakePoint("car", kT0, 0, 10),
                            MakePoint("car", kT0 + 2000, 0, 11),
                            MakePoint("car", kT0 + 600000, 0, 12)})
                  .ok());
  auto call = [&](int64_t t, v1::GetPositionAtRequest::Method method,
                  int64_t max_gap_ms, v1::GetPositionAtResponse* resp) {
    v1::GetPositionAtRequest req;
    req.set_collection("fleet");
    req.set_entity_id("car");
    req.set_time_ms(t);
    req.set_method(method);
    req.set_max_gap_ms(max_gap_ms);
    grpc::ClientContext ctx;
    return server_.stub().GetPositionAt(&ctx, req, resp);
  };
  v1::GetPositionAtResponse at;
  ASSERT_TRUE(
      call(kT0 + 500, v1::GetPositionAtRequest::INTERPOLATE, 0, &at).ok());
  EXPECT_NEAR(at.position().longitude(), 10.25, 1e-9);
  EXPECT_EQ(at.before().loc_time_ms(), kT0);
  EXPECT_EQ(at.after().loc_time_ms(), kT0 + 2000);

  at.Clear();
  ASSERT_TRUE(call(kT0 + 1500, v1::GetPositionAtRequest::NEAREST, 0, &at).ok());
  EXPECT_EQ(at.position().longitude(), 11);
  EXPECT_FALSE(at.has_before());
  EXPECT_EQ(at.after().loc_time_ms(), kT0 + 2000);

  // Ten minutes between fixes: more than the gap allowed.
  grpc::Status s =
      call(kT0 + 60000, v1::GetPositionAtRequest::INTERPOLATE, 300000, &at);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::OUT_OF_RANGE);
  EXPECT_THAT(s.error_message(), HasSubstr("more than max_gap_ms (300000)"));
  s = call(kT0 - 1, v1::GetPositionAtRequest::INTERPOLATE, 0, &at);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::OUT_OF_RANGE);
  s = call(kT0, v1::GetPositionAtRequest::INTERPOLATE, -1, &at);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(s.error_message(), HasSubstr("max_gap_ms"));
  s = call(kT0, static_cast<v1::GetPositionAtRequest::Method>(7), 0, &at);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(s.error_message(), HasSubstr("method 7"));

  v1::GetPositionAtRequest req;
  req.set_collection("fleet");
  req.set_time_ms(kT0);
  grpc::ClientContext ctx;
  s = server_.stub().GetPositionAt(&ctx, req, &at);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(s.error_message(), HasSubstr("entity_id"));
  req.set_entity_id("nobody");
  req.set_time_ms(0);
  grpc::ClientContext ctx3;
  s = server_.stub().GetPositionAt(&ctx3, req, &at);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(s.error_message(), HasSubstr("time_ms is required"));
  req.set_time_ms(kT0);
  grpc::ClientContext ctx2;
  EXPECT_EQ(server_.stub().GetPositionAt(&ctx2, req, &at).error_code(),
            grpc::StatusCode::NOT_FOUND);
}

// Along the equator 0.001 degrees a step: a drive, a 15-minute stay, a
// 20-minute gap, a wild fix, one more step.
TEST_F(TrackServiceTest, AnalyzeTrackAndSimplifiedPages) {
  std::vector<v1::Point> points;
  int64_t t = kT0;
  for (int i = 0; i <= 9; ++i, t += 10000) {
    points.push_back(MakePoint("car", t, 0, i * 0.001));
  }
  t -= 10000;
  for (int i = 1; i <= 15; ++i) {
    points.push_back(MakePoint("car", t + i * 60000, 0, 0.009));
  }
  t += 15 * 60000;
  const int64_t stay_end = t;
  t += 20 * 60000;
  points.push_back(MakePoint("car", t, 0, 0.019));
  points.push_back(MakePoint("car", t + 1000, 0.5, 0.019));  // 55 km off
  points.push_back(MakePoint("car", t + 10000, 0, 0.020));
  ASSERT_TRUE(Add("fleet", points).ok());

  v1::AnalyzeTrackRequest req;
  req.set_collection("fleet");
  req.set_entity_id("car");
  req.set_max_speed_kmh(200);
  v1::AnalyzeTrackResponse a;
  grpc::ClientContext ctx;
  ASSERT_TRUE(server_.stub().AnalyzeTrack(&ctx, req, &a).ok());
  const double step = index::HaversineMeters({0, 0}, {0, 0.001});
  EXPECT_EQ(a.fixes(), points.size());
  EXPECT_EQ(a.jumps(), 1u);
  EXPECT_NEAR(a.distance_m(), 20 * step, 1e-6);
  ASSERT_EQ(a.stays_size(), 1);
  EXPECT_EQ(a.stays(0).start_ms(), kT0 + 90000);
  EXPECT_EQ(a.stays(0).end_ms(), stay_end);
  EXPECT_EQ(a.stays(0).fixes(), 16u);
  ASSERT_EQ(a.gaps_size(), 1);
  EXPECT_NEAR(a.gaps(0).straight_m(), 10 * step, 1e-6);
  ASSERT_EQ(a.trips_size(), 2);
  EXPECT_NEAR(a.trips(1).distance_m(), 11 * step, 1e-6);
  EXPECT_EQ(a.moving_ms(), 100000);
  EXPECT_NEAR(a.mean_speed_kmh(), 10 * step / 100 * 3.6, 1e-9);

  req.set_gap_mode(v1::AnalyzeTrackRequest::NONE);
  req.set_end_time_ms(kT0 + 90000);
  a.Clear();
  grpc::ClientContext ctx2;
  ASSERT_TRUE(server_.stub().AnalyzeTrack(&ctx2, req, &a).ok());
  EXPECT_EQ(a.fixes(), 10u);
  EXPECT_TRUE(a.stays().empty());

  req.set_stay_radius_m(-1);
  grpc::ClientContext ctx3;
  grpc::Status s = server_.stub().AnalyzeTrack(&ctx3, req, &a);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(s.error_message(), HasSubstr("stay_radius_m"));
  req.set_stay_radius_m(0);
  req.set_stay_min_ms(int64_t{1} << 40);
  grpc::ClientContext ctx6;
  s = server_.stub().AnalyzeTrack(&ctx6, req, &a);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(s.error_message(), HasSubstr("stay_min_ms must be in [0, "));

  // The straight drive drawn with two points.
  v1::GetTrackRequest track;
  track.set_collection("fleet");
  track.set_entity_id("car");
  track.set_end_time_ms(kT0 + 90000);
  track.set_simplify_tolerance_m(1);
  v1::GetTrackResponse drawn;
  grpc::ClientContext ctx4;
  ASSERT_TRUE(server_.stub().GetTrack(&ctx4, track, &drawn).ok());
  ASSERT_EQ(drawn.points_size(), 2);
  EXPECT_EQ(drawn.points(1).loc_time_ms(), kT0 + 90000);
  track.set_simplify_tolerance_m(-1);
  grpc::ClientContext ctx5;
  EXPECT_EQ(server_.stub().GetTrack(&ctx5, track, &drawn).error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
}

TEST_F(TrackServiceTest, DeleteEntity) {
  ASSERT_TRUE(Add("fleet", {MakePoint("car", kT0, 1, 1)}).ok());
  v1::DeleteEntityRequest req;
  req.set_collection("fleet");
  req.set_entity_id("car");
  v1::DeleteEntityResponse resp;
  {
    grpc::ClientContext ctx;
    ASSERT_TRUE(server_.stub().DeleteEntity(&ctx, req, &resp).ok());
    EXPECT_TRUE(resp.existed());
  }
  EXPECT_TRUE(Radius(1, 1, 100).hits().empty());
  grpc::ClientContext ctx;
  ASSERT_TRUE(server_.stub().DeleteEntity(&ctx, req, &resp).ok());
  EXPECT_FALSE(resp.existed());
}

TEST_F(TrackServiceTest, RadiusSearchIsNearestFirstWithDistances) {
  ASSERT_TRUE(Add("fleet", {MakePoint("far", kT0, 39.9 + 0.004, 116.4),
                            MakePoint("near", kT0, 39.9 + 0.001, 116.4),
                            MakePoint("out", kT0, 39.9 + 0.01, 116.4)})
                  .ok());
  auto r = Radius(39.9, 116.4, 500);
  EXPECT_THAT(Ids(r), ElementsAre("near", "far"));
  EXPECT_NEAR(r.hits(0).distance_m(), 111.2, 0.5);
  EXPECT_LT(r.hits(0).distance_m(), r.hits(1).distance_m());
}

TEST_F(TrackServiceTest, FiltersAndIdsOnly) {
  ASSERT_TRUE(Add("fleet", {MakePoint("old", kT0 - 100000, 10, 10),
                            MakePoint("new", kT0, 10.0001, 10),
                            MakePoint("other", kT0, 10.0002, 10)})
                  .ok());
  v1::SearchFilter f;
  f.set_active_since_ms(kT0 - 1);
  EXPECT_THAT(Ids(Radius(10, 10, 1000, f)), ElementsAre("new", "other"));
  f.add_entity_ids("old");
  f.add_entity_ids("new");
  EXPECT_THAT(Ids(Radius(10, 10, 1000, f)), ElementsAre("new"));
  f.clear_active_since_ms();
  f.set_ids_and_positions_only(true);
  auto r = Radius(10, 10, 1000, f);
  ASSERT_EQ(r.hits_size(), 2);
  EXPECT_EQ(r.hits(0).point().entity_id(), "old");  // distance 0: nearest
  EXPECT_EQ(r.hits(0).point().latitude(), 10);
  EXPECT_EQ(r.hits(1).point().latitude(), 10.0001);
  EXPECT_EQ(r.hits(0).point().loc_time_ms(), 0);  // omitted
}

TEST_F(TrackServiceTest, SearchPagesCoverEveryHitOnce) {
  std::vector<v1::Point> points;
  for (int i = 0; i < 250; ++i) {
    points.push_back(MakePoint(absl::StrCat("e", i), kT0, 10 + i * 1e-5, 10));
  }
  ASSERT_TRUE(Add("fleet", points).ok());
  v1::SearchFilter f;
  f.set_page_size(100);
  std::vector<std::string> all;
  int pages = 0;
  do {
    auto r = Radius(10, 10, 5000, f);
    for (const auto& id : Ids(r)) all.push_back(id);
    f.set_page_token(r.next_page_token());
    ++pages;
  } while (!f.page_token().empty());
  EXPECT_EQ(pages, 3);
  EXPECT_EQ(all.size(), 250u);
  EXPECT_EQ(std::set<std::string>(all.begin(), all.end()).size(), 250u);
  EXPECT_EQ(all.front(), "e0");  // nearest first across pages
}

// Small pages of a radius search are decided from a smaller circle when it
// holds enough hits (TrackServiceImpl::Search): paging through with small
// pages must give exactly the order of one page holding everything, ties at
// equal distances (shared positions) included, with active_since applied.
TEST_F(TrackServiceTest, SmallPagesEqualOneLargePage) {
  std::mt19937 rng(9);
  std::uniform_real_distribution<double> d(-0.01, 0.01);
  std::vector<v1::Point> points;
  for (int i = 0; i < 600; ++i) {
    v1::Point p =
        i % 5 == 4 && !points.empty()
            ? points[rng() % points.size()]  // a shared position
            : MakePoint("", kT0 - (i % 7) * 1000, 10 + d(rng), 10 + d(rng));
    p.set_entity_id(absl::StrCat("e", i));
    points.push_back(p);
  }
  ASSERT_TRUE(Add("fleet", points).ok());
  for (const bool since : {false, true}) {
    v1::SearchFilter all;
    all.set_page_size(1000);
    if (since) all.set_active_since_ms(kT0 - 3500);
    const std::vector<std::string> expected = Ids(Radius(10, 10, 1500, all));
    ASSERT_GT(expected.size(), 200u);
    for (int page_size : {1, 7, 50}) {
      v1::SearchFilter f = all;
      f.set_page_size(page_size);
      std::vector<std::string> paged;
      do {
        auto r = Radius(10, 10, 1500, f);
        ASSERT_LE(r.hits_size(), page_size);
        for (const auto& id : Ids(r)) paged.push_back(id);
        f.set_page_token(r.next_page_token());
      } while (!f.page_token().empty());
      EXPECT_EQ(paged, expected) << "page size " << page_size;
    }
  }
}

// The index covers the poles (index/region_test.cc), but points are taken
// only within Redis's GEO range (model/limits.h), so its edges are where
// they can be.
TEST_F(TrackServiceTest, AntimeridianAndTheEdgesOfTheRange) {
  ASSERT_TRUE(Add("fleet", {MakePoint("east", kT0, 0, 179.9995),
                            MakePoint("west", kT0, 0, -179.9995),
                            MakePoint("north", kT0, 85.05112878, 45),
                            MakePoint("near-north", kT0, 85.0511, -135)})
                  .ok());
  EXPECT_THAT(Ids(Radius(0, 180, 200)), ElementsAre("east", "west"));
  EXPECT_THAT(Ids(Bounds(-1, 179.9, 1, -179.9)), ElementsAre("east", "west"));
  EXPECT_THAT(Ids(Radius(85.05112878, 45, 50)), ElementsAre("north"));
  EXPECT_THAT(Ids(Bounds(85.05, -180, 90, 180)),
              ::testing::UnorderedElementsAre("near-north", "north"));
  const grpc::Status polar = Add("fleet", {MakePoint("pole", kT0, 90, 0)});
  EXPECT_EQ(polar.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(polar.error_message(), HasSubstr("points[0].latitude"));
}

TEST_F(TrackServiceTest, PolygonSearch) {
  ASSERT_TRUE(Add("fleet", {MakePoint("inside", kT0, 0.5, 0.5),
                            MakePoint("notch", kT0, 1.5, 2),
                            MakePoint("outside", kT0, 5, 5)})
                  .ok());
  v1::SearchPolygonRequest req;
  req.set_collection("fleet");
  const double ring[][2] = {{0, 0}, {0, 3}, {1, 3}, {1, 1},
                            {2, 1}, {2, 3}, {3, 3}, {3, 0}};
  for (const auto& v : ring) {
    auto* ll = req.add_vertices();
    ll->set_latitude(v[0]);
    ll->set_longitude(v[1]);
  }
  v1::SearchResponse resp;
  grpc::ClientContext ctx;
  ASSERT_TRUE(server_.stub().SearchPolygon(&ctx, req, &resp).ok());
  EXPECT_THAT(Ids(resp), ElementsAre("inside"));
}

TEST_F(TrackServiceTest, InvalidSearchesNameTheField) {
  auto radius = [&](double lat, double lon, double r) {
    v1::SearchResponse resp;
    return RadiusCall(lat, lon, r, {}, &resp);
  };
  EXPECT_TRUE(radius(0, 0, 0).ok());  // the centre's exact position
  EXPECT_THAT(radius(0, 0, -1).error_message(), HasSubstr("radius_m"));
  EXPECT_THAT(radius(0, 0, NAN).error_message(), HasSubstr("radius_m"));
  EXPECT_THAT(radius(85.06, 0, 10).error_message(),
              HasSubstr("center.latitude"));

  v1::SearchBoundsRequest bounds;
  bounds.mutable_south_west()->set_latitude(10);
  bounds.mutable_north_east()->set_latitude(5);
  v1::SearchResponse resp;
  grpc::ClientContext ctx;
  grpc::Status s = server_.stub().SearchBounds(&ctx, bounds, &resp);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(s.error_message(), HasSubstr("south_west.latitude"));

  auto polygon = [&](std::vector<std::pair<double, double>> vs) {
    v1::SearchPolygonRequest req;
    for (auto [lat, lon] : vs) {
      auto* v = req.add_vertices();
      v->set_latitude(lat);
      v->set_longitude(lon);
    }
    grpc::ClientContext c;
    return server_.stub().SearchPolygon(&c, req, &resp);
  };
  EXPECT_THAT(polygon({{0, 0}, {1, 1}}).error_message(), HasSubstr("vertices"));
  s = polygon({{0, 0}, {1, 1}, {0, 1}, {1, 0}});
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(s.error_message(), HasSubstr("self-intersecting"));
}

TEST_F(TrackServiceTest, SearchHistoryFindsPastFixesInAreaAndTime) {
  // "a" drove through the square at kT0+10s and kT0+20s, then left; "b"
  // passed it only later; "c" was always far away.
  ASSERT_TRUE(
      Add("fleet",
          {MakePoint("a", kT0, 10, 10.1), MakePoint("a", kT0 + 10000, 10, 10),
           MakePoint("a", kT0 + 20000, 10.001, 10),
           MakePoint("a", kT0 + 30000, 11, 11),
           MakePoint("b", kT0 + 50000, 10, 10),
           MakePoint("b", kT0 + 60000, 12, 12), MakePoint("c", kT0, 20, 20)})
          .ok());
  v1::SearchHistoryRequest req;
  req.set_collection("fleet");
  req.mutable_bounds()->mutable_south_west()->set_latitude(9.99);
  req.mutable_bounds()->mutable_south_west()->set_longitude(9.99);
  req.mutable_bounds()->mutable_north_east()->set_latitude(10.01);
  req.mutable_bounds()->mutable_north_east()->set_longitude(10.01);
  req.set_start_time_ms(kT0);
  req.set_end_time_ms(kT0 + 40000);
  auto call = [&](const v1::SearchHistoryRequest& r) {
    v1::SearchHistoryResponse resp;
    grpc::ClientContext ctx;
    grpc::Status s = server_.stub().SearchHistory(&ctx, r, &resp);
    EXPECT_TRUE(s.ok()) << s.error_message();
    return resp;
  };
  v1::SearchHistoryResponse resp = call(req);
  ASSERT_EQ(resp.points_size(), 2);
  EXPECT_EQ(resp.points(0).entity_id(), "a");
  EXPECT_EQ(resp.points(0).loc_time_ms(), kT0 + 10000);
  EXPECT_EQ(resp.points(1).loc_time_ms(), kT0 + 20000);
  EXPECT_TRUE(resp.next_page_token().empty());

  // All time, one row per entity, a page of one.
  req.set_start_time_ms(0);
  req.set_end_time_ms(0);
  req.set_per_entity(true);
  req.set_page_size(1);
  resp = call(req);
  ASSERT_EQ(resp.visits_size(), 1);
  EXPECT_EQ(resp.visits(0).first().entity_id(), "a");
  EXPECT_EQ(resp.visits(0).first().loc_time_ms(), kT0 + 10000);
  EXPECT_EQ(resp.visits(0).last().loc_time_ms(), kT0 + 20000);
  EXPECT_EQ(resp.visits(0).fixes(), 2u);
  ASSERT_FALSE(resp.next_page_token().empty());
  req.set_page_token(resp.next_page_token());
  resp = call(req);
  ASSERT_EQ(resp.visits_size(), 1);
  EXPECT_EQ(resp.visits(0).first().entity_id(), "b");
  EXPECT_TRUE(resp.next_page_token().empty());

  // A circle and a polygon around the same place agree.
  v1::SearchHistoryRequest circle;
  circle.set_collection("fleet");
  circle.mutable_circle()->mutable_center()->set_latitude(10);
  circle.mutable_circle()->mutable_center()->set_longitude(10);
  circle.mutable_circle()->set_radius_m(500);
  EXPECT_EQ(call(circle).points_size(), 3);
  v1::SearchHistoryRequest polygon;
  polygon.set_collection("fleet");
  for (auto [lat, lon] : std::vector<std::pair<double, double>>{
           {9.99, 9.99}, {9.99, 10.01}, {10.01, 10.01}, {10.01, 9.99}}) {
    auto* v = polygon.mutable_polygon()->add_vertices();
    v->set_latitude(lat);
    v->set_longitude(lon);
  }
  EXPECT_EQ(call(polygon).points_size(), 3);
}

TEST_F(TrackServiceTest, SearchHistoryRefusesBadInputNamingTheField) {
  auto error = [&](const v1::SearchHistoryRequest& r) {
    v1::SearchHistoryResponse resp;
    grpc::ClientContext ctx;
    grpc::Status s = server_.stub().SearchHistory(&ctx, r, &resp);
    EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    return s.error_message();
  };
  v1::SearchHistoryRequest req;
  req.set_collection("fleet");
  EXPECT_THAT(error(req), HasSubstr("area is required"));
  req.mutable_circle()->set_radius_m(10);
  EXPECT_THAT(error(req), HasSubstr("circle.center is required"));
  req.mutable_circle()->mutable_center()->set_latitude(10);
  req.mutable_circle()->set_radius_m(-1);
  EXPECT_THAT(error(req), HasSubstr("circle.radius_m"));
  req.mutable_circle()->set_radius_m(10);
  req.mutable_circle()->mutable_center()->set_latitude(91);
  EXPECT_THAT(error(req), HasSubstr("circle.center.latitude"));
  req.mutable_circle()->mutable_center()->set_latitude(10);
  req.set_start_time_ms(5);
  req.set_end_time_ms(4);
  EXPECT_THAT(error(req), HasSubstr("start_time_ms"));
  req.set_end_time_ms(0);
  req.set_page_size(100000);
  EXPECT_THAT(error(req), HasSubstr("page_size"));
  req.set_page_size(0);
  req.set_page_token(std::string(65536, 'x'));
  EXPECT_THAT(error(req), HasSubstr("page_token"));
  req.clear_page_token();
  req.mutable_bounds()->mutable_south_west()->set_latitude(10);
  EXPECT_THAT(error(req), HasSubstr("bounds.south_west and bounds.north_east"));
  req.mutable_bounds()->mutable_north_east()->set_latitude(5);
  EXPECT_THAT(error(req), HasSubstr("bounds.south_west.latitude"));
  req.mutable_polygon()->add_vertices();
  EXPECT_THAT(error(req), HasSubstr("polygon.vertices"));
  req.set_collection("");
  EXPECT_THAT(error(req), HasSubstr("collection"));
}

TEST_F(TrackServiceTest, UnknownCollectionReadsAreEmpty) {
  v1::SearchRadiusRequest req;
  req.set_collection("nobody");
  req.mutable_center()->set_latitude(1);
  req.set_radius_m(10);
  v1::SearchResponse resp;
  grpc::ClientContext ctx;
  ASSERT_TRUE(server_.stub().SearchRadius(&ctx, req, &resp).ok());
  EXPECT_EQ(resp.hits_size(), 0);
  v1::GetLatestRequest get;
  get.set_collection("nobody");
  get.add_entity_ids("x");
  v1::GetLatestResponse latest;
  grpc::ClientContext ctx2;
  ASSERT_TRUE(server_.stub().GetLatest(&ctx2, get, &latest).ok());
  EXPECT_THAT(latest.missing_entity_ids(), ElementsAre("x"));
}

TEST_F(TrackServiceTest, ExpiredDeadlineIsHonoured) {
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() - std::chrono::seconds(1));
  v1::AddPointsRequest req;
  req.set_collection("fleet");
  *req.add_points() = MakePoint("late", kT0, 1, 1);
  v1::AddPointsResponse resp;
  EXPECT_EQ(server_.stub().AddPoints(&ctx, req, &resp).error_code(),
            grpc::StatusCode::DEADLINE_EXCEEDED);
}

TEST_F(TrackServiceTest, HealthCheckReportsServing) {
  auto health = grpc::health::v1::Health::NewStub(server_.channel());
  for (const char* service : {"", "trackdb.v1.TrackService"}) {
    grpc::health::v1::HealthCheckRequest req;
    req.set_service(service);
    grpc::health::v1::HealthCheckResponse resp;
    grpc::ClientContext ctx;
    ASSERT_TRUE(health->Check(&ctx, req, &resp).ok()) << service;
    EXPECT_EQ(resp.status(), grpc::health::v1::HealthCheckResponse::SERVING);
  }
}

TEST_F(TrackServiceTest, ReflectionListsAndDescribesTheService) {
  namespace reflection = ::trackdb::testing::reflection;
  static const grpc::internal::RpcMethod kMethod(
      "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
      grpc::internal::RpcMethod::BIDI_STREAMING);
  grpc::ClientContext ctx;
  std::unique_ptr<
      grpc::ClientReaderWriter<reflection::ServerReflectionRequest,
                               reflection::ServerReflectionResponse>>
      stream(grpc::internal::ClientReaderWriterFactory<
             reflection::ServerReflectionRequest,
             reflection::ServerReflectionResponse>::Create(server_.channel()
                                                               .get(),
                                                           kMethod, &ctx));
  reflection::ServerReflectionRequest req;
  req.set_list_services("");
  ASSERT_TRUE(stream->Write(req));
  reflection::ServerReflectionResponse resp;
  ASSERT_TRUE(stream->Read(&resp));
  std::set<std::string> names;
  for (const auto& s : resp.list_services_response().service()) {
    names.insert(s.name());
  }
  EXPECT_TRUE(names.count("trackdb.v1.TrackService"));
  EXPECT_TRUE(names.count("grpc.health.v1.Health"));

  req.set_file_containing_symbol("trackdb.v1.TrackService");
  ASSERT_TRUE(stream->Write(req));
  ASSERT_TRUE(stream->Read(&resp));
  ASSERT_GT(resp.file_descriptor_response().file_descriptor_proto_size(), 0);
  google::protobuf::FileDescriptorProto file;
  ASSERT_TRUE(file.ParseFromString(
      resp.file_descriptor_response().file_descriptor_proto(0)));
  EXPECT_EQ(file.package(), "trackdb.v1");
  stream->WritesDone();
}

// ExportGeoJson runs the query as its own call and writes its answer as a
// FeatureCollection (formats/track_writer.h has the shape).
TEST_F(TrackServiceTest, ExportGeoJsonOfATrackAndOfASearch) {
  ASSERT_TRUE(Add("fleet", {MakePoint("car", kT0, 39.9, 116.4),
                            MakePoint("car", kT0 + 1000, 39.91, 116.41),
                            MakePoint("car", kT0 + 2000, 39.92, 116.42),
                            MakePoint("bus", kT0, 39.9001, 116.4)})
                  .ok());
  auto parse = [](const std::string& text) {
    google::protobuf::Struct doc;
    EXPECT_TRUE(google::protobuf::util::JsonStringToMessage(text, &doc).ok())
        << text;
    return doc;
  };
  auto run = [&](const v1::ExportGeoJsonRequest& req,
                 v1::ExportGeoJsonResponse* resp) {
    grpc::ClientContext ctx;
    return server_.stub().ExportGeoJson(&ctx, req, resp);
  };

  v1::ExportGeoJsonRequest req;
  req.mutable_track()->set_collection("fleet");
  req.mutable_track()->set_entity_id("car");
  req.mutable_track()->set_page_size(2);
  v1::ExportGeoJsonResponse resp;
  ASSERT_TRUE(run(req, &resp).ok());
  EXPECT_EQ(resp.next_page_token(), absl::StrCat(kT0 + 2000));
  google::protobuf::Struct doc = parse(resp.geojson());
  const auto& line = doc.fields().at("features").list_value().values(0);
  const auto& geometry = line.struct_value().fields().at("geometry");
  EXPECT_EQ(geometry.struct_value().fields().at("type").string_value(),
            "LineString");
  const auto& coords =
      geometry.struct_value().fields().at("coordinates").list_value();
  ASSERT_EQ(coords.values_size(), 2);
  EXPECT_EQ(coords.values(1).list_value().values(0).number_value(), 116.41);
  EXPECT_EQ(coords.values(1).list_value().values(1).number_value(), 39.91);

  req.Clear();
  req.mutable_radius()->set_collection("fleet");
  req.mutable_radius()->mutable_center()->set_latitude(39.9);
  req.mutable_radius()->mutable_center()->set_longitude(116.4);
  req.mutable_radius()->set_radius_m(100);
  ASSERT_TRUE(run(req, &resp).ok());
  doc = parse(resp.geojson());
  const auto& hits = doc.fields().at("features").list_value();
  ASSERT_EQ(hits.values_size(), 1);  // car has moved on
  const auto& props =
      hits.values(0).struct_value().fields().at("properties").struct_value();
  EXPECT_EQ(props.fields().at("entity_id").string_value(), "bus");
  EXPECT_NEAR(props.fields().at("distance_m").number_value(), 11.1, 0.1);

  // Checked as its own call would be, and a query is required.
  req.Clear();
  req.mutable_track()->set_collection("fleet");
  req.mutable_track()->set_entity_id("car");
  req.mutable_track()->set_page_size(5000);
  grpc::Status bad = run(req, &resp);
  EXPECT_EQ(bad.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(bad.error_message(), HasSubstr("page_size"));
  bad = run(v1::ExportGeoJsonRequest(), &resp);
  EXPECT_EQ(bad.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(bad.error_message(), HasSubstr("query is required"));
}

}  // namespace
}  // namespace trackdb::service
