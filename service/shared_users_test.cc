// Both doors of one trackd share its users (trackd.cc hands them one
// auth::UserTable): CONFIG SET requirepass on RESP changes the password a
// gRPC call must send, at once; and protected mode refuses to clear the
// password of a server listening beyond loopback.
#include <memory>
#include <string>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "conf/config.h"
#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "service/auth/users.h"
#include "service/grpc/grpc_server.h"
#include "service/resp/server/resp_server.h"
#include "service/resp/testing/resp_test_client.h"
#include "storage/store_test_util.h"
#include "trackdb/v1/track_service.grpc.pb.h"

namespace trackdb::service {
namespace {

using resp::testing::RawClient;
using ::testing::HasSubstr;

class BothDoors {
 public:
  explicit BothDoors(v1::TrackdbConfig config) {
    config = conf::WithDefaults(config);
    config.mutable_server()->set_grpc_port(0);
    config.mutable_server()->set_resp_port(0);
    config.set_data_dir(storage::testing::NewDataDir());
    store_ = storage::testing::OpenStore(config.data_dir());
    auto users = std::make_shared<auth::UserTable>(config.server());
    auto grpc_server = GrpcServer::Start(config, store_.get(), users);
    EXPECT_TRUE(grpc_server.ok()) << grpc_server.status();
    if (grpc_server.ok()) grpc_ = *std::move(grpc_server);
    auto resp_server = resp::RespServer::Start(config, store_.get(), users);
    EXPECT_TRUE(resp_server.ok()) << resp_server.status();
    if (resp_server.ok()) resp_ = *std::move(resp_server);
    channel_ = grpc::CreateChannel(absl::StrCat("127.0.0.1:", grpc_->port()),
                                   grpc::InsecureChannelCredentials());
    stub_ = v1::TrackService::NewStub(channel_);
  }
  ~BothDoors() {
    resp_->Shutdown();
    grpc_->Shutdown(absl::Seconds(1));
  }

  int resp_port() const { return resp_->port(); }

  // GetLatest as `user`:`password` (none when `user` is empty).
  grpc::StatusCode ReadAs(const std::string& user,
                          const std::string& password) {
    grpc::ClientContext ctx;
    if (!user.empty()) {
      ctx.AddMetadata("authorization",
                      "Basic " + absl::Base64Escape(user + ":" + password));
    }
    v1::GetLatestRequest req;
    req.set_collection("fleet");
    req.add_entity_ids("car");
    v1::GetLatestResponse resp;
    return stub_->GetLatest(&ctx, req, &resp).error_code();
  }

 private:
  std::unique_ptr<storage::TrackStore> store_;
  std::unique_ptr<GrpcServer> grpc_;
  std::unique_ptr<resp::RespServer> resp_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::TrackService::Stub> stub_;
};

TEST(SharedUsersTest, ConfigSetRequirepassHoldsOnTheGrpcDoorAtOnce) {
  v1::TrackdbConfig config;
  config.mutable_server()->set_requirepass("old");
  BothDoors doors(config);
  EXPECT_EQ(doors.ReadAs("default", "old"), grpc::StatusCode::OK);
  EXPECT_EQ(doors.ReadAs("", ""), grpc::StatusCode::UNAUTHENTICATED);

  RawClient admin(doors.resp_port());
  EXPECT_EQ(admin.Call({"AUTH", "old"}), "+OK\r\n");
  EXPECT_EQ(admin.Call({"CONFIG", "SET", "requirepass", "new"}), "+OK\r\n");
  EXPECT_EQ(doors.ReadAs("default", "old"), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(doors.ReadAs("default", "new"), grpc::StatusCode::OK);

  // On loopback, clearing it opens both doors, as in Redis.
  EXPECT_EQ(admin.Call({"CONFIG", "SET", "requirepass", ""}), "+OK\r\n");
  EXPECT_EQ(doors.ReadAs("", ""), grpc::StatusCode::OK);
  RawClient anyone(doors.resp_port());
  EXPECT_EQ(anyone.Call({"PING"}), "+PONG\r\n");
}

TEST(SharedUsersTest, ProtectedModeKeepsThePasswordOfAnOpenBind) {
  v1::TrackdbConfig config;
  config.mutable_server()->set_requirepass("pw");
  config.mutable_server()->set_resp_bind_address("0.0.0.0");
  BothDoors doors(config);
  RawClient admin(doors.resp_port());
  ASSERT_EQ(admin.Call({"AUTH", "pw"}), "+OK\r\n");
  const std::string refused = admin.Call({"CONFIG", "SET", "requirepass", ""});
  EXPECT_THAT(refused, HasSubstr("-ERR CONFIG SET failed (possibly related to "
                                 "argument 'requirepass') - protected mode"));
  EXPECT_THAT(refused, HasSubstr("0.0.0.0"));
  EXPECT_EQ(admin.Call({"CONFIG", "GET", "requirepass"}),
            "*2\r\n$11\r\nrequirepass\r\n$2\r\npw\r\n");
  EXPECT_EQ(doors.ReadAs("", ""), grpc::StatusCode::UNAUTHENTICATED);
  // A new password is fine.
  EXPECT_EQ(admin.Call({"CONFIG", "SET", "requirepass", "pw2"}), "+OK\r\n");
  EXPECT_EQ(doors.ReadAs("default", "pw2"), grpc::StatusCode::OK);
}

TEST(SharedUsersTest, ProtectedModeOffOrUsersAllowAnEmptyRequirepass) {
  for (const bool with_users : {false, true}) {
    v1::TrackdbConfig config;
    config.mutable_server()->set_requirepass("pw");
    config.mutable_server()->set_resp_bind_address("0.0.0.0");
    if (with_users) {
      v1::User* u = config.mutable_server()->add_users();
      u->set_name("ops");
      u->set_password("ops-pw");
      u->set_role(v1::USER_ROLE_ADMIN);
    } else {
      config.mutable_server()->set_protected_mode("no");
    }
    BothDoors doors(config);
    RawClient admin(doors.resp_port());
    ASSERT_EQ(admin.Call({"AUTH", "pw"}), "+OK\r\n");
    EXPECT_EQ(admin.Call({"CONFIG", "SET", "requirepass", ""}), "+OK\r\n")
        << "with users: " << with_users;
    // With users every client still logs in; without, the door is open.
    EXPECT_EQ(doors.ReadAs("", ""), with_users
                                        ? grpc::StatusCode::UNAUTHENTICATED
                                        : grpc::StatusCode::OK);
  }
}

}  // namespace
}  // namespace trackdb::service
