// The map page's site and API over a real store: each endpoint's JSON,
// its refusals of bad parameters, credentials, Leaflet's files, and the
// live stream's snapshot, positions and fence events.

#include "service/web/map_site.h"

#include <fstream>
#include <thread>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "fence/fence_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "service/web/map_api.h"
#include "storage/store_test_util.h"
#include "trackdb/v1/config.pb.h"

namespace trackdb::web {
namespace {

using storage::testing::Point;
using ::testing::HasSubstr;
using ::testing::Not;

http::HttpRequest Get(std::string path_and_query,
                      std::string host = "127.0.0.1:9900") {
  absl::StatusOr<http::HttpRequest> r = http::ParseRequest(
      "GET " + path_and_query + " HTTP/1.1\r\nHost: " + host + "\r\n\r\n");
  EXPECT_TRUE(r.ok()) << r.status();
  return *r;
}

class MapSiteTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = storage::testing::OpenStore(storage::testing::NewDataDir());
    // Truck t1 drives north along a meridian for 20 fixes, then parks 15
    // minutes (a stay); t2 sits still far away.
    std::vector<model::TrackPoint> points;
    for (int i = 0; i < 20; ++i) {
      points.push_back(Point("t1", 1000 + i * 10000, 40.0 + i * 0.001, 116.0));
    }
    for (int i = 1; i <= 16; ++i) {
      points.push_back(Point("t1", 191000 + i * 60000, 40.019, 116.0));
    }
    points.push_back(Point("t2", 5000, 41.0, 117.0));
    ASSERT_TRUE(store_->AddPoints("fleet", points).ok());
    v1::Fence fence = fence::testing::CircleFence(40.03, 116.0, 300);
    ASSERT_TRUE(store_->fences().Put(fence).ok());
    site_ = std::make_unique<MapSite>(store_.get(), nullptr, leaflet_dir_, "");
  }

  std::string Body(const std::string& target, int want_status = 200) {
    WebAnswer a = site_->Handle(Get(target));
    EXPECT_EQ(a.answer.status, want_status) << target << ": " << a.answer.body;
    return a.answer.body;
  }

  std::string leaflet_dir_ = ::testing::TempDir();
  std::unique_ptr<storage::TrackStore> store_;
  std::unique_ptr<MapSite> site_;
};

TEST_F(MapSiteTest, CollectionsAndLatest) {
  EXPECT_EQ(Body("/api/collections"),
            "{\"collections\":[{\"name\":\"fleet\",\"entities\":2}]}\n");
  const std::string geojson = Body("/api/latest?collection=fleet");
  EXPECT_THAT(geojson, HasSubstr("\"type\":\"FeatureCollection\""));
  EXPECT_THAT(geojson, HasSubstr("\"coordinates\":[117,41]},\"properties\":"
                                 "{\"entity\":\"t2\",\"time_ms\":5000}"));
  EXPECT_EQ(Body("/api/latest?collection=fleet&format=rows"),
            "{\"rows\":[[\"t1\",116,40.019,1151000],[\"t2\",117,41,5000]]}\n");
  EXPECT_EQ(Body("/api/latest?collection=none&format=rows"), "{\"rows\":[]}\n");
  EXPECT_THAT(Body("/api/latest?collection=fleet&format=kml", 400),
              HasSubstr("format must be \\\"geojson\\\" or \\\"rows\\\""));
  EXPECT_THAT(Body("/api/latest", 400), HasSubstr("collection is required"));
}

TEST_F(MapSiteTest, TrackIsSimplifiedWithItsStays) {
  const std::string all =
      Body("/api/track?collection=fleet&entity=t1&tolerance_m=0");
  EXPECT_THAT(all, HasSubstr("\"fixes\":36,\"shown\":36"));
  // A straight drive then a parked run: a few metres' tolerance keeps
  // the ends of the drive and of the stay.
  const std::string simple = Body("/api/track?collection=fleet&entity=t1");
  EXPECT_THAT(simple, HasSubstr("\"fixes\":36,\"shown\":"));
  EXPECT_THAT(simple, Not(HasSubstr("\"shown\":36")));
  EXPECT_THAT(simple, HasSubstr("{\"kind\":\"stay\",\"start_ms\":191000"));
  EXPECT_THAT(simple, HasSubstr("\"analysis\":{\"fixes\":36"));
  // A time range: only the drive's first 5 fixes.
  EXPECT_THAT(
      Body("/api/track?collection=fleet&entity=t1&to=41000&tolerance_m=0"),
      HasSubstr("\"fixes\":5,\"shown\":5"));
  EXPECT_THAT(Body("/api/track?collection=fleet&entity=t1&from=x", 400),
              HasSubstr("from must be an integer, got \\\"x\\\""));
  EXPECT_THAT(Body("/api/track?collection=fleet&entity=t1&tolerance_m=-1", 400),
              HasSubstr("tolerance_m must be a number of metres >= 0"));
  EXPECT_THAT(Body("/api/track?collection=fleet", 400),
              HasSubstr("entity is required"));
}

TEST_F(MapSiteTest, FencesAndWhoWasThere) {
  EXPECT_THAT(Body("/api/fences?collection=fleet"),
              HasSubstr("\"name\":\"depot\",\"circle\":{\"center\":"
                        "{\"latitude\":40.03,\"longitude\":116},"
                        "\"radiusM\":300}"));
  // t1's drive passed 40.005..40.010 between 51 s and 101 s.
  const std::string box =
      Body("/api/search?collection=fleet&bbox=115.99,40.0045,116.01,40.0105");
  EXPECT_THAT(box, HasSubstr("{\"entity\":\"t1\",\"fixes\":6,\"first\":"
                             "{\"time_ms\":51000"));
  EXPECT_THAT(box, Not(HasSubstr("t2")));
  EXPECT_THAT(Body("/api/search?collection=fleet&bbox=115.99,40.0045,116.01,"
                   "40.0105&from=200000"),
              HasSubstr("\"visits\":[]"));
  EXPECT_THAT(Body("/api/search?collection=fleet&circle=117,41,100"),
              HasSubstr("\"entity\":\"t2\""));
  EXPECT_THAT(Body("/api/search?collection=fleet", 400),
              HasSubstr("bbox or circle is required"));
  EXPECT_THAT(
      Body("/api/search?collection=fleet&bbox=1,2,3", 400),
      HasSubstr("bbox must be west,south,east,north, got \\\"1,2,3\\\""));
  EXPECT_THAT(Body("/api/search?collection=fleet&circle=1,2,3&limit=0", 400),
              HasSubstr("limit must be 1..1000"));
}

TEST_F(MapSiteTest, PageAssetsAndLeafletFiles) {
  EXPECT_THAT(Body("/"), HasSubstr("<script src=\"/leaflet/leaflet.js\">"));
  EXPECT_THAT(Body("/static/map.js"), HasSubstr("EventSource"));
  { std::ofstream(leaflet_dir_ + "/leaflet.js") << "var L = {};"; }
  WebAnswer js = site_->Handle(Get("/leaflet/leaflet.js"));
  EXPECT_EQ(js.answer.body, "var L = {};");
  EXPECT_THAT(js.answer.content_type, HasSubstr("javascript"));
  EXPECT_THAT(Body("/leaflet/missing.css", 404),
              HasSubstr("install Debian's libjs-leaflet"));
  Body("/leaflet/../etc/passwd.js", 404);
  Body("/leaflet/images/../../x.png", 404);
  Body("/nothing", 404);
  EXPECT_THAT(Body("/api/config"), HasSubstr("{\"tile_url\":\"\"}"));
}

TEST_F(MapSiteTest, WithoutCredentialsOnlyItsOwnHostIsServed) {
  Body("/api/collections");
  for (const char* host : {"localhost:80", "[::1]:9900", "127.0.0.1"}) {
    EXPECT_EQ(site_->Handle(Get("/api/collections", host)).answer.status, 200)
        << host;
  }
  // A page of another site whose name now points at 127.0.0.1.
  WebAnswer rebound =
      site_->Handle(Get("/api/latest?collection=fleet", "evil.example:9900"));
  EXPECT_EQ(rebound.answer.status, 403);
  EXPECT_THAT(rebound.answer.body, HasSubstr("Host \"evil.example\""));
  // Served on every address, it answers any Host.
  MapSite open(store_.get(), nullptr, leaflet_dir_, "", "0.0.0.0");
  EXPECT_EQ(open.Handle(Get("/api/collections", "10.0.0.7:9900")).answer.status,
            200);
}

TEST_F(MapSiteTest, AtMostMaxStreamsAtOnce) {
  std::vector<WebAnswer> held;
  for (int i = 0; i < MapSite::kMaxStreams; ++i) {
    held.push_back(site_->Handle(Get("/api/stream?collection=fleet")));
    ASSERT_TRUE(held.back().stream) << i;
  }
  WebAnswer refused = site_->Handle(Get("/api/stream?collection=fleet"));
  EXPECT_EQ(refused.answer.status, 503);
  EXPECT_FALSE(refused.stream);
  held.pop_back();  // one ends: a slot is free again
  EXPECT_TRUE(site_->Handle(Get("/api/stream?collection=fleet")).stream);
}

TEST_F(MapSiteTest, ThePageForbidsOtherScriptsAndFrames) {
  WebAnswer page = site_->Handle(Get("/"));
  EXPECT_THAT(page.answer.headers,
              HasSubstr("Content-Security-Policy: default-src 'self'"));
  EXPECT_THAT(page.answer.headers,
              HasSubstr("X-Content-Type-Options: nosniff"));
}

TEST_F(MapSiteTest, CredentialsWhenTheDoorsAskThem) {
  v1::ServerConfig server;
  v1::User* user = server.add_users();
  user->set_name("viewer");
  user->set_password("secret");
  user->set_role(v1::USER_ROLE_READ_ONLY);
  auth::UserTable users(server);
  MapSite site(store_.get(), &users, leaflet_dir_, "");
  for (const char* path :
       {"/", "/api/collections", "/api/stream?collection=fleet",
        "/leaflet/leaflet.js"}) {
    WebAnswer a = site.Handle(Get(path));
    EXPECT_EQ(a.answer.status, 401) << path;
    EXPECT_THAT(a.answer.headers, HasSubstr("WWW-Authenticate: Basic"));
    EXPECT_FALSE(a.stream) << path;
  }
  http::HttpRequest wrong = Get("/api/collections");
  wrong.header["authorization"] = "Basic " + absl::Base64Escape("viewer:nope");
  EXPECT_EQ(site.Handle(wrong).answer.status, 401);
  http::HttpRequest right = Get("/api/collections");
  right.header["authorization"] =
      "Basic " + absl::Base64Escape("viewer:secret");
  EXPECT_EQ(site.Handle(right).answer.status, 200);
}

// Records what a stream sends; stops it once `until` appears.
class Recorder : public EventStream {
 public:
  explicit Recorder(std::string until) : until_(std::move(until)) {}
  bool Send(absl::string_view data) override {
    absl::MutexLock l(&mu_);
    sent_ += std::string(data);
    return true;
  }
  bool stopping() const override {
    absl::MutexLock l(&mu_);
    return absl::StrContains(sent_, until_) || absl::Now() > deadline_;
  }
  std::string sent() const {
    absl::MutexLock l(&mu_);
    return sent_;
  }

 private:
  const std::string until_;
  const absl::Time deadline_ = absl::Now() + absl::Seconds(20);
  mutable absl::Mutex mu_;
  std::string sent_;
};

TEST_F(MapSiteTest, StreamSendsSnapshotThenMovesThenFenceEvents) {
  WebAnswer a = site_->Handle(Get("/api/stream?collection=fleet"));
  ASSERT_TRUE(a.stream);
  EXPECT_EQ(a.answer.content_type, "text/event-stream; charset=utf-8");
  Recorder out("event: fence");
  std::thread streaming([&] { a.stream(out); });
  while (!absl::StrContains(out.sent(), "event: snapshot")) {
    absl::SleepFor(absl::Milliseconds(5));
  }
  // t2 moves twice (sent once, its newest), t3 arrives, t1 drives into
  // the depot's fence.
  ASSERT_TRUE(
      store_->AddPoints("fleet", {Point("t2", 6000, 41.1, 117.0)}).ok());
  ASSERT_TRUE(store_
                  ->AddPoints("fleet", {Point("t2", 7000, 41.2, 117.0),
                                        Point("t3", 7000, 1, 2)})
                  .ok());
  ASSERT_TRUE(
      store_->AddPoints("fleet", {Point("t1", 2000000, 40.03, 116.0)}).ok());
  streaming.join();
  const std::string sent = out.sent();
  EXPECT_THAT(sent, HasSubstr("event: snapshot\ndata: {\"rows\":[[\"t1\",116,"
                              "40.019,1151000],[\"t2\",117,41,5000]],"
                              "\"sent_ms\":"));
  EXPECT_THAT(sent, HasSubstr("[\"t2\",117,41.2,7000]"));
  EXPECT_THAT(sent, Not(HasSubstr("41.1,6000")));
  EXPECT_THAT(sent, HasSubstr("[\"t3\",2,1,7000]"));
  EXPECT_THAT(sent, HasSubstr("event: fence\ndata: {"));
  EXPECT_THAT(sent,
              HasSubstr("\"fence\":\"depot\",\"kind\":\"FENCE_EVENT_ENTER\""));
}

TEST_F(MapSiteTest, AStreamOfARemovedCollectionSendsAnEmptySnapshot) {
  WebAnswer a = site_->Handle(Get("/api/stream?collection=fleet"));
  Recorder out("{\"rows\":[],");
  std::thread streaming([&] { a.stream(out); });
  while (!absl::StrContains(out.sent(), "event: snapshot")) {
    absl::SleepFor(absl::Milliseconds(5));
  }
  ASSERT_TRUE(store_->DeleteCollection("fleet").ok());
  streaming.join();
  EXPECT_THAT(out.sent(), HasSubstr("{\"rows\":[],"));
}

}  // namespace
}  // namespace trackdb::web
