// Every class of bad input on the gRPC door, one table: NaN and
// out-of-range coordinates, oversized names, bad page tokens, huge page
// sizes, self-intersecting and oversized polygons, empty or missing
// required fields. Each call must get INVALID_ARGUMENT naming the field,
// write nothing (the store's whole state is compared before and after) and
// leave the server serving.
#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "grpcpp/support/byte_buffer.h"
#include "grpcpp/support/sync_stream.h"
#include "gtest/gtest.h"
#include "model/limits.h"
#include "service/grpc/test_server.h"

namespace trackdb::service {
namespace {

using ::testing::HasSubstr;
using testing::MakePoint;

constexpr int64_t kT0 = 1700000000000;  // inside the time window
const std::string kLongName(model::kMaxCollectionBytes + 1, 'n');

void SetLatLng(v1::LatLng* ll, double lat, double lon) {
  ll->set_latitude(lat);
  ll->set_longitude(lon);
}

using Stub = v1::TrackService::Stub;

struct BadCall {
  std::string what;
  std::string field;  // the error must name it
  std::function<grpc::Status(Stub&)> call;
};

grpc::Status AddPoints(Stub& stub, const std::string& collection,
                       const std::vector<v1::Point>& points) {
  v1::AddPointsRequest req;
  req.set_collection(collection);
  for (const v1::Point& p : points) *req.add_points() = p;
  v1::AddPointsResponse resp;
  grpc::ClientContext ctx;
  return stub.AddPoints(&ctx, req, &resp);
}

grpc::Status AddPoint(Stub& stub, const v1::AddPointRequest& req) {
  v1::AddPointResponse resp;
  grpc::ClientContext ctx;
  return stub.AddPoint(&ctx, req, &resp);
}

grpc::Status Stream(Stub& stub,
                    const std::vector<v1::StreamPointsRequest>& messages) {
  grpc::ClientContext ctx;
  v1::StreamPointsResponse resp;
  auto writer = stub.StreamPoints(&ctx, &resp);
  for (const auto& m : messages) {
    if (!writer->Write(m)) break;
  }
  writer->WritesDone();
  return writer->Finish();
}

grpc::Status GetTrack(Stub& stub, const v1::GetTrackRequest& req) {
  v1::GetTrackResponse resp;
  grpc::ClientContext ctx;
  return stub.GetTrack(&ctx, req, &resp);
}

grpc::Status Radius(Stub& stub, const v1::SearchRadiusRequest& req) {
  v1::SearchResponse resp;
  grpc::ClientContext ctx;
  return stub.SearchRadius(&ctx, req, &resp);
}

grpc::Status Polygon(Stub& stub,
                     const std::vector<std::pair<double, double>>& ring) {
  v1::SearchPolygonRequest req;
  req.set_collection("fleet");
  for (auto [lat, lon] : ring) SetLatLng(req.add_vertices(), lat, lon);
  v1::SearchResponse resp;
  grpc::ClientContext ctx;
  return stub.SearchPolygon(&ctx, req, &resp);
}

v1::GetTrackRequest TrackRequest() {
  v1::GetTrackRequest req;
  req.set_collection("fleet");
  req.set_entity_id("truck");
  req.set_start_time_ms(kT0);
  return req;
}

v1::SearchRadiusRequest RadiusRequest() {
  v1::SearchRadiusRequest req;
  req.set_collection("fleet");
  SetLatLng(req.mutable_center(), 10, 20);
  req.set_radius_m(1000);
  return req;
}

std::vector<BadCall> WriteCalls() {
  std::vector<BadCall> calls;
  const auto add = [&](std::string what, std::string field,
                       std::vector<v1::Point> points,
                       std::string collection = "fleet") {
    calls.push_back({what, field, [=](Stub& s) {
                       return AddPoints(s, collection, points);
                     }});
  };
  const v1::Point good = MakePoint("new", kT0, 1, 1);
  add("NaN latitude after a good point", "points[1].latitude",
      {good, MakePoint("x", kT0, NAN, 0)});
  add("-inf longitude", "points[0].longitude",
      {MakePoint("x", kT0, 0, -INFINITY)});
  add("latitude past Mercator", "points[0].latitude",
      {MakePoint("x", kT0, 85.06, 0)});
  add("longitude 181", "points[0].longitude", {MakePoint("x", kT0, 0, 181)});
  add("oversized entity", "points[0].entity_id",
      {MakePoint(std::string(model::kMaxEntityIdBytes + 1, 'e'), kT0, 0, 0)});
  add("oversized collection", "collection", {good}, kLongName);
  add("empty collection", "collection", {good}, "");
  add("no points", "points", {});
  add("no loc_time", "points[0].loc_time_ms", {MakePoint("x", 0, 0, 0)});
  v1::Point many_attributes = good;
  for (int i = 0; i < 33; ++i) {
    (*many_attributes.mutable_attributes())[absl::StrCat("k", i)] = "v";
  }
  add("33 attributes", "points[0].attributes", {many_attributes});
  v1::Point long_attribute = good;
  (*long_attribute.mutable_attributes())[std::string(257, 'k')] = "v";
  add("257-byte attribute key", "points[0].attributes", {long_attribute});
  v1::AddPointRequest no_point;
  no_point.set_collection("fleet");
  calls.push_back({"AddPoint without a point", "point",
                   [=](Stub& s) { return AddPoint(s, no_point); }});
  v1::AddPointRequest nan_point = no_point;
  *nan_point.mutable_point() = MakePoint("x", kT0, 0, NAN);
  calls.push_back({"AddPoint NaN longitude", "point.longitude",
                   [=](Stub& s) { return AddPoint(s, nan_point); }});
  v1::StreamPointsRequest unnamed;
  *unnamed.add_points() = good;
  calls.push_back({"StreamPoints without a collection", "collection",
                   [=](Stub& s) { return Stream(s, {unnamed}); }});
  v1::StreamPointsRequest long_named = unnamed;
  long_named.set_collection(kLongName);
  calls.push_back({"StreamPoints oversized collection", "collection",
                   [=](Stub& s) { return Stream(s, {long_named}); }});
  return calls;
}

std::vector<BadCall> DeleteAndReadCalls() {
  std::vector<BadCall> calls;
  const auto del = [&](std::string what, std::string field,
                       std::string collection, std::string entity) {
    v1::DeleteEntityRequest req;
    req.set_collection(collection);
    req.set_entity_id(entity);
    calls.push_back({what, field, [=](Stub& s) {
                       v1::DeleteEntityResponse resp;
                       grpc::ClientContext ctx;
                       return s.DeleteEntity(&ctx, req, &resp);
                     }});
  };
  del("DeleteEntity without an entity", "entity_id", "fleet", "");
  del("DeleteEntity oversized entity", "entity_id", "fleet",
      std::string(model::kMaxEntityIdBytes + 1, 'e'));
  del("DeleteEntity without a collection", "collection", "", "truck");
  const auto latest = [&](std::string what, std::string field,
                          std::string collection,
                          std::vector<std::string> ids) {
    v1::GetLatestRequest req;
    req.set_collection(collection);
    for (const auto& id : ids) req.add_entity_ids(id);
    calls.push_back({what, field, [=](Stub& s) {
                       v1::GetLatestResponse resp;
                       grpc::ClientContext ctx;
                       return s.GetLatest(&ctx, req, &resp);
                     }});
  };
  latest("GetLatest oversized collection", "collection", kLongName, {"truck"});
  latest("GetLatest oversized entity", "entity_ids[1]", "fleet",
         {"truck", std::string(model::kMaxEntityIdBytes + 1, 'e')});
  latest("GetLatest no entities", "entity_ids", "fleet", {});
  const auto track = [&](std::string what, std::string field,
                         v1::GetTrackRequest req) {
    calls.push_back({what, field, [=](Stub& s) { return GetTrack(s, req); }});
  };
  v1::GetTrackRequest req = TrackRequest();
  req.set_page_size(4294967295u);
  track("GetTrack page size 2^32-1", "page_size", req);
  req = TrackRequest();
  req.set_collection(kLongName);
  track("GetTrack oversized collection", "collection", req);
  req = TrackRequest();
  std::string token;
  for (int i = 0; i < (1 << 19); ++i) token += "\u00e9";  // 1 MiB of UTF-8
  req.set_page_token(token);
  track("GetTrack 1 MiB non-ASCII page token", "page_token", req);
  return calls;
}

std::vector<BadCall> SearchCalls() {
  std::vector<BadCall> calls;
  const auto radius = [&](std::string what, std::string field,
                          v1::SearchRadiusRequest req) {
    calls.push_back({what, field, [=](Stub& s) { return Radius(s, req); }});
  };
  v1::SearchRadiusRequest req = RadiusRequest();
  SetLatLng(req.mutable_center(), 10, NAN);
  radius("NaN centre", "center.longitude", req);
  req = RadiusRequest();
  req.set_radius_m(INFINITY);
  radius("infinite radius", "radius_m", req);
  req = RadiusRequest();
  req.mutable_filter()->set_page_size(1001);
  radius("page size 1001", "filter.page_size", req);
  req = RadiusRequest();
  req.mutable_filter()->set_page_size(4294967295u);
  radius("page size 2^32-1", "filter.page_size", req);
  req = RadiusRequest();
  req.mutable_filter()->set_page_token("garbage");
  radius("garbage page token", "filter.page_token", req);
  req = RadiusRequest();
  req.mutable_filter()->set_page_token(std::string(64 << 10, '7'));
  radius("64 KiB page token", "filter.page_token", req);
  req = RadiusRequest();
  req.mutable_filter()->add_entity_ids(
      std::string(model::kMaxEntityIdBytes + 1, 'e'));
  radius("oversized filter entity", "filter.entity_ids[0]", req);
  req = RadiusRequest();
  req.clear_collection();
  radius("search without a collection", "collection", req);
  v1::SearchBoundsRequest bounds;
  bounds.set_collection("fleet");
  SetLatLng(bounds.mutable_south_west(), 0, 0);
  SetLatLng(bounds.mutable_north_east(), 1, 181);
  calls.push_back(
      {"bounds longitude 181", "north_east.longitude", [=](Stub& s) {
         v1::SearchResponse resp;
         grpc::ClientContext ctx;
         return s.SearchBounds(&ctx, bounds, &resp);
       }});
  const auto polygon = [&](std::string what, std::string field,
                           std::vector<std::pair<double, double>> ring) {
    calls.push_back({what, field, [=](Stub& s) { return Polygon(s, ring); }});
  };
  polygon("bow tie", "vertices", {{0, 0}, {0, 2}, {2, 0}, {2, 2}});
  polygon("figure eight, closed", "vertices",
          {{0, 0}, {2, 2}, {2, 0}, {0, 2}, {0, 0}});
  polygon("NaN vertex", "vertices[1].latitude", {{0, 0}, {NAN, 1}, {1, 1}});
  std::vector<std::pair<double, double>> huge;
  for (int i = 0; i < 1001; ++i) {
    const double a = 2 * M_PI * i / 1001;
    huge.push_back({std::sin(a), std::cos(a)});
  }
  polygon("1001 vertices", "vertices", huge);
  polygon("no vertices", "vertices", {});
  return calls;
}

// The store's whole state: every collection, every entity's latest point
// and every point of the seeded track.
std::string Dump(storage::TrackStore& store) {
  std::string out;
  std::vector<std::string> names;
  EXPECT_TRUE(store
                  .ScanCollections([&](absl::string_view c, int64_t size) {
                    absl::StrAppend(&out, c.substr(0, 32), "=", size, ";");
                    names.emplace_back(c);
                    return true;
                  })
                  .ok());
  for (const std::string& c : names) {
    EXPECT_TRUE(store
                    .ScanLatest(c,
                                [&](const model::TrackPoint& p) {
                                  absl::StrAppend(&out, p.entity, "@",
                                                  p.loc_time_ms, ";");
                                  return true;
                                })
                    .ok());
  }
  storage::TrackQuery q;
  q.collection = "fleet";
  q.entity = "truck";
  q.limit = 1000;
  auto page = store.GetTrack(q);
  EXPECT_TRUE(page.ok());
  if (page.ok()) absl::StrAppend(&out, "track=", page->points.size());
  return out;
}

TEST(BadInputTest, EachClassIsInvalidArgumentNamingTheFieldAndWritesNothing) {
  testing::TestServer server;
  ASSERT_TRUE(AddPoints(server.stub(), "fleet",
                        {MakePoint("truck", kT0, 10, 20),
                         MakePoint("truck", kT0 + 1000, 10.001, 20),
                         MakePoint("car", kT0, 10, 20.001)})
                  .ok());
  std::vector<BadCall> calls = WriteCalls();
  for (auto more : {DeleteAndReadCalls(), SearchCalls()}) {
    calls.insert(calls.end(), more.begin(), more.end());
  }
  const std::string before = Dump(server.store());
  for (const BadCall& c : calls) {
    const grpc::Status s = c.call(server.stub());
    EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT)
        << c.what << ": " << s.error_message();
    EXPECT_THAT(s.error_message(), HasSubstr(c.field)) << c.what;
    EXPECT_LT(s.error_message().size(), 300u) << c.what;
    EXPECT_EQ(Dump(server.store()), before) << c.what << " wrote";
  }
  // Still serving, reads and writes.
  ASSERT_TRUE(
      AddPoints(server.stub(), "fleet", {MakePoint("after", kT0, 1, 1)}).ok());
  EXPECT_TRUE(GetTrack(server.stub(), TrackRequest()).ok());
}

// StreamPoints as raw messages: a client can send bytes no protobuf
// decodes, which gRPC's typed reader would take for the end of the stream.
grpc::Status StreamBytes(testing::TestServer& server,
                         const std::vector<std::string>& messages,
                         v1::StreamPointsResponse* resp) {
  static const grpc::internal::RpcMethod kStreamPoints(
      "/trackdb.v1.TrackService/StreamPoints",
      grpc::internal::RpcMethod::CLIENT_STREAMING);
  grpc::ClientContext ctx;
  std::unique_ptr<grpc::ClientWriter<grpc::ByteBuffer>> writer(
      grpc::internal::ClientWriterFactory<grpc::ByteBuffer>::Create(
          server.channel().get(), kStreamPoints, &ctx, resp));
  for (const std::string& m : messages) {
    grpc::Slice slice(m);
    if (!writer->Write(grpc::ByteBuffer(&slice, 1))) break;
  }
  writer->WritesDone();
  return writer->Finish();
}

std::string OnePointMessage(const std::string& id) {
  v1::StreamPointsRequest m;
  m.set_collection("fleet");
  *m.add_points() = MakePoint(id, kT0, 1, 1);
  return m.SerializeAsString();
}

TEST(BadInputTest, AnUndecodableStreamMessageIsAnErrorNotTheEnd) {
  testing::TestServer server;
  v1::StreamPointsResponse resp;
  // Field 1 (collection) says 5 bytes follow; 2 do.
  const std::string undecodable(
      "\x0a\x05"
      "ab",
      4);
  grpc::Status s = StreamBytes(
      server, {OnePointMessage("first"), undecodable, OnePointMessage("third")},
      &resp);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT)
      << s.error_message();
  EXPECT_THAT(
      s.error_message(),
      HasSubstr("message[1]: not a valid trackdb.v1.StreamPointsRequest"));
  EXPECT_THAT(s.error_message(),
              HasSubstr("1 points of earlier messages were stored"));
  const std::string stored = Dump(server.store());
  EXPECT_THAT(stored, HasSubstr("first@"));
  EXPECT_THAT(stored, ::testing::Not(HasSubstr("third@")));

  // Well-formed raw messages are read as the typed stub sends them.
  s = StreamBytes(server, {OnePointMessage("a"), OnePointMessage("b")}, &resp);
  ASSERT_TRUE(s.ok()) << s.error_message();
  EXPECT_EQ(resp.stored(), 2u);
}

}  // namespace
}  // namespace trackdb::service
