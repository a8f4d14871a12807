// FenceService through a real server: fences stored and checked, points
// written with TrackService evaluated, and Watch from an offset, live, and
// resumed after a disconnect with each event exactly once.

#include <atomic>
#include <cmath>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "grpcpp/support/sync_stream.h"
#include "gtest/gtest.h"
#include "service/grpc/test_server.h"
#include "trackdb/v1/fence.grpc.pb.h"

namespace trackdb::service {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr double kLat = 40.0, kLon = 116.0;
constexpr double kIn = 40.0, kOut = 40.01;
constexpr int64_t kT0 = 1700000000000;  // fix times are kT0 + t

class FenceServiceTest : public ::testing::Test {
 protected:
  FenceServiceTest() : fences_(v1::FenceService::NewStub(server_.channel())) {}

  grpc::Status Put(const v1::Fence& fence, bool* created = nullptr) {
    grpc::ClientContext ctx;
    v1::PutFenceRequest req;
    *req.mutable_fence() = fence;
    v1::PutFenceResponse resp;
    grpc::Status s = fences_->PutFence(&ctx, req, &resp);
    if (created) *created = resp.created();
    return s;
  }

  // How many fences "fleet" has.
  int CountFences() {
    grpc::ClientContext ctx;
    v1::ListFencesRequest req;
    req.set_collection("fleet");
    v1::ListFencesResponse resp;
    EXPECT_TRUE(fences_->ListFences(&ctx, req, &resp).ok());
    return resp.fences_size();
  }

  static v1::Fence Depot() {
    v1::Fence f;
    f.set_collection("fleet");
    f.set_name("depot");
    f.mutable_circle()->mutable_center()->set_latitude(kLat);
    f.mutable_circle()->mutable_center()->set_longitude(kLon);
    f.mutable_circle()->set_radius_m(500);
    return f;
  }

  void AddPoint(const std::string& entity, int64_t t, double lat) {
    grpc::ClientContext ctx;
    v1::AddPointRequest req;
    req.set_collection("fleet");
    v1::Point* p = req.mutable_point();
    p->set_entity_id(entity);
    p->set_loc_time_ms(kT0 + t);
    p->set_latitude(lat);
    p->set_longitude(kLon);
    v1::AddPointResponse resp;
    ASSERT_TRUE(server_.stub().AddPoint(&ctx, req, &resp).ok());
  }

  // "<offset> <entity> <kind>" for the first `n` events of a Watch.
  std::vector<std::string> Watch(uint64_t from, size_t n) {
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() +
                     std::chrono::seconds(30));
    v1::WatchRequest req;
    req.set_collection("fleet");
    req.set_from_offset(from);
    auto reader = fences_->Watch(&ctx, req);
    std::vector<std::string> out;
    v1::FenceEvent e;
    while (out.size() < n && reader->Read(&e)) {
      out.push_back(absl::StrCat(e.offset(), " ", e.point().entity_id(), " ",
                                 v1::FenceEventKind_Name(e.kind())));
      if (!e.nearby().empty()) {
        absl::StrAppend(&out.back(), " near ", e.nearby(), " ",
                        std::lround(e.nearby_distance_m()), " m");
      }
    }
    ctx.TryCancel();
    return out;
  }

  testing::TestServer server_;
  std::unique_ptr<v1::FenceService::Stub> fences_;
};

TEST_F(FenceServiceTest, FencesAreStoredListedAndDeleted) {
  bool created = false;
  ASSERT_TRUE(Put(Depot(), &created).ok());
  EXPECT_TRUE(created);
  ASSERT_TRUE(Put(Depot(), &created).ok());
  EXPECT_FALSE(created);
  {
    grpc::ClientContext ctx;
    v1::GetFenceRequest req;
    req.set_collection("fleet");
    req.set_name("depot");
    v1::Fence got;
    ASSERT_TRUE(fences_->GetFence(&ctx, req, &got).ok());
    EXPECT_EQ(got.circle().radius_m(), 500);
  }
  EXPECT_EQ(CountFences(), 1);
  grpc::ClientContext ctx;
  v1::DeleteFenceRequest req;
  req.set_collection("fleet");
  req.set_name("depot");
  v1::DeleteFenceResponse resp;
  ASSERT_TRUE(fences_->DeleteFence(&ctx, req, &resp).ok());
  EXPECT_TRUE(resp.deleted());
  grpc::ClientContext get_ctx;
  v1::GetFenceRequest get;
  get.set_collection("fleet");
  get.set_name("depot");
  v1::Fence got;
  EXPECT_EQ(fences_->GetFence(&get_ctx, get, &got).error_code(),
            grpc::StatusCode::NOT_FOUND);
  // The name's rule is the domain's (model::ValidateFenceName).
  grpc::ClientContext unnamed_ctx;
  get.clear_name();
  const grpc::Status unnamed = fences_->GetFence(&unnamed_ctx, get, &got);
  EXPECT_EQ(unnamed.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(unnamed.error_message(), "name must be 1 to 1024 bytes, got 0");
}

TEST_F(FenceServiceTest, ABadFenceIsInvalidArgumentNamingTheField) {
  v1::Fence f = Depot();
  f.mutable_circle()->set_radius_m(0);
  grpc::Status s = Put(f);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(s.error_message(), HasSubstr("fence.circle.radius_m"));
  f = Depot();
  f.set_collection("");
  s = Put(f);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(s.error_message(), HasSubstr("fence.collection"));
  EXPECT_EQ(CountFences(), 0);
}

TEST_F(FenceServiceTest, WatchSendsEachEventOnceAcrossReconnects) {
  ASSERT_TRUE(Put(Depot()).ok());
  AddPoint("t1", 1000, kIn);
  AddPoint("t2", 1000, kIn);
  AddPoint("t1", 2000, kOut);
  EXPECT_THAT(Watch(1, 3),
              ElementsAre("1 t1 FENCE_EVENT_ENTER", "2 t2 FENCE_EVENT_ENTER",
                          "3 t1 FENCE_EVENT_EXIT"));
  // A consumer that handled offset 2 resumes at 3.
  EXPECT_THAT(Watch(3, 1), ElementsAre("3 t1 FENCE_EVENT_EXIT"));
  {
    grpc::ClientContext ctx;
    v1::GetFenceStateRequest req;
    req.set_collection("fleet");
    req.set_name("depot");
    v1::GetFenceStateResponse resp;
    ASSERT_TRUE(fences_->GetFenceState(&ctx, req, &resp).ok());
    EXPECT_THAT(resp.inside(), ElementsAre("t2"));
  }
}

TEST_F(FenceServiceTest, ARoamingFenceReportsTheNearestTarget) {
  v1::Fence f = Depot();
  f.set_name("close");
  f.mutable_roam()->set_radius_m(300);  // replaces the circle
  ASSERT_TRUE(Put(f).ok());
  AddPoint("bus", 1000, kIn);
  AddPoint("t1", 1000, kOut);
  AddPoint("t1", 2000, kIn + 0.001);  // 111 m north of the bus
  AddPoint("t1", 3000, kOut);
  EXPECT_THAT(Watch(1, 2), ElementsAre("1 t1 FENCE_EVENT_ENTER near bus 111 m",
                                       "2 t1 FENCE_EVENT_EXIT"));
  f.mutable_roam()->set_radius_m(-5);
  const grpc::Status s = Put(f);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(s.error_message(), HasSubstr("fence.roam.radius_m"));
}

TEST_F(FenceServiceTest, WatchFromNowSeesOnlyNewEvents) {
  ASSERT_TRUE(Put(Depot()).ok());
  AddPoint("t1", 1000, kIn);  // before the watch: not sent
  // New entities enter until the watch has seen one (however long the
  // watch takes to start).
  std::atomic<bool> seen{false};
  std::thread writer([&] {
    for (int i = 2; !seen.load(); ++i) {
      AddPoint(absl::StrCat("t", i), 1000, kIn);
      absl::SleepFor(absl::Milliseconds(100));
    }
  });
  const std::vector<std::string> got = Watch(0, 1);
  seen = true;
  writer.join();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_THAT(got[0], ::testing::EndsWith("FENCE_EVENT_ENTER"));
  EXPECT_NE(got[0], "1 t1 FENCE_EVENT_ENTER");
}

}  // namespace
}  // namespace trackdb::service
