// Both doors report the webhooks' counters: AdminService.GetStats and
// INFO's "# Webhooks" section read the FenceWebhooks trackd runs.

#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "conf/config.h"
#include "fence/fence_test_util.h"
#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "service/events/fence_webhook.h"
#include "service/grpc/grpc_server.h"
#include "service/resp/server/resp_server.h"
#include "service/resp/testing/resp_test_client.h"
#include "storage/store_test_util.h"
#include "trackdb/v1/admin_service.grpc.pb.h"

namespace trackdb::service {
namespace {

using resp::testing::RawClient;
using ::testing::HasSubstr;
using ::testing::Not;

class WebhookStatsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    config_ = conf::WithDefaults(config_);
    config_.mutable_server()->set_grpc_port(0);
    config_.mutable_server()->set_resp_port(0);
    store_ = storage::testing::OpenStore(storage::testing::NewDataDir());
    ASSERT_TRUE(
        store_->fences().Put(fence::testing::CircleFence(40, 116, 500)).ok());
  }
  void TearDown() override {
    if (resp_) resp_->Shutdown();
    if (grpc_) grpc_->Shutdown(absl::Seconds(1));
  }

  void StartDoors(const FenceWebhooks* webhooks) {
    auto grpc_server =
        GrpcServer::Start(config_, store_.get(), nullptr, webhooks);
    ASSERT_TRUE(grpc_server.ok()) << grpc_server.status();
    grpc_ = *std::move(grpc_server);
    auto resp_server =
        resp::RespServer::Start(config_, store_.get(), nullptr, webhooks);
    ASSERT_TRUE(resp_server.ok()) << resp_server.status();
    resp_ = *std::move(resp_server);
  }

  // Three fixes of t1, each across the fence's edge: three events.
  void CrossThreeTimes() {
    for (int i = 1; i <= 3; ++i) {
      const double lat = i % 2 ? 40.0 : 40.01;
      ASSERT_TRUE(store_
                      ->AddPoints("fleet", {storage::testing::Point(
                                               "t1", i * 1000, lat, 116)})
                      .ok());
    }
  }

  v1::GetStatsResponse GetStats() {
    auto admin = v1::AdminService::NewStub(
        grpc::CreateChannel(absl::StrCat("127.0.0.1:", grpc_->port()),
                            grpc::InsecureChannelCredentials()));
    grpc::ClientContext context;
    v1::GetStatsResponse stats;
    EXPECT_TRUE(admin->GetStats(&context, {}, &stats).ok());
    return stats;
  }

  v1::TrackdbConfig config_;
  std::unique_ptr<storage::TrackStore> store_;
  std::unique_ptr<GrpcServer> grpc_;
  std::unique_ptr<resp::RespServer> resp_;
};

TEST_F(WebhookStatsTest, BothDoorsReportAnEndpointThatIsDown) {
  v1::FenceWebhook* down = config_.mutable_server()->add_fence_webhooks();
  down->set_name("ops");
  const std::string url =
      absl::StrCat("http://127.0.0.1:", resp::testing::FreePort(), "/x");
  down->set_url(url + "?token=secret");
  down->set_collection("fleet");
  FenceWebhook::Timing fast;
  fast.first_backoff = absl::Milliseconds(5);
  fast.max_backoff = absl::Milliseconds(5);
  auto webhooks = FenceWebhooks::Start(store_.get(), config_.server(), fast);
  ASSERT_TRUE(webhooks.ok()) << webhooks.status();
  StartDoors(webhooks->get());
  CrossThreeTimes();
  const absl::Time deadline = absl::Now() + absl::Seconds(30);
  while ((*webhooks)->Stats()[0].counters.failed < 2 &&
         absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(5));
  }

  const v1::GetStatsResponse stats = GetStats();
  ASSERT_EQ(stats.webhooks_size(), 1);
  EXPECT_EQ(stats.webhooks(0).name(), "ops");
  EXPECT_EQ(stats.webhooks(0).collection(), "fleet");
  EXPECT_EQ(stats.webhooks(0).url(), url);  // the token left out
  EXPECT_EQ(stats.webhooks(0).delivered(), 0u);
  EXPECT_GE(stats.webhooks(0).failed(), 2u);
  EXPECT_GE(stats.webhooks(0).retried(), 1u);
  EXPECT_EQ(stats.webhooks(0).pending(), 3u);

  RawClient client(resp_->port());
  const std::string info = client.Call({"INFO", "webhooks"});
  EXPECT_THAT(info, HasSubstr("# Webhooks\r\nwebhook0:name=ops,"
                              "collection=fleet,delivered=0,retried="));
  EXPECT_THAT(info, HasSubstr(",pending=3\r\n"));
  EXPECT_THAT(info, Not(HasSubstr("# Server")));
  EXPECT_THAT(client.Call({"INFO"}), HasSubstr("\r\nwebhook0:name=ops,"));
}

TEST_F(WebhookStatsTest, NoWebhooksNoLines) {
  StartDoors(nullptr);
  CrossThreeTimes();
  EXPECT_EQ(GetStats().webhooks_size(), 0);
  RawClient client(resp_->port());
  const std::string info = client.Call({"INFO", "webhooks"});
  EXPECT_THAT(info, HasSubstr("# Webhooks\r\n"));
  EXPECT_THAT(info, Not(HasSubstr("webhook0:")));
}

}  // namespace
}  // namespace trackdb::service
