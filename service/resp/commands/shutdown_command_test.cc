// SHUTDOWN: its refusals beside a real redis-server (no call here stops
// Redis), and, on trackdb's server alone, the stop it hands to the process,
// the wait for a lagging replica and SHUTDOWN ABORT ending it.
#include <atomic>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/notification.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "service/resp/server/resp_server.h"
#include "service/resp/testing/resp_test_client.h"
#include "storage/replication/replication.h"

namespace trackdb::resp {
namespace {

using testing::Differential;
using testing::EncodeCommand;
using testing::RawClient;
using testing::TrackdbResp;

constexpr char kFailed[] = "-ERR Errors trying to SHUTDOWN. Check logs.\r\n";

TEST(ShutdownCommandTest, RefusalsAsRedis) {
  Differential d;
  for (const auto& call : std::vector<std::vector<std::string>>{
           {"SHUTDOWN", "ABORT"},
           {"shutdown", "abort"},
           {"SHUTDOWN", "FOO"},
           {"SHUTDOWN", "SAVE", "NOSAVE"},
           {"SHUTDOWN", "ABORT", "NOW"},
           {"SHUTDOWN", "NOW", "ABORT"},
       }) {
    EXPECT_SAME_REPLY(d, call);
  }
  // Refused inside MULTI, and EXEC then aborts.
  for (const auto& call :
       std::vector<std::vector<std::string>>{{"MULTI"},
                                             {"SET", "k", "v"},
                                             {"SHUTDOWN", "NOW"},
                                             {"EXEC"},
                                             {"GET", "k"}}) {
    EXPECT_SAME_REPLY(d, call);
  }
}

// A server whose SHUTDOWN stops nothing but counts; with workers to spare
// for a replica's pulls while SHUTDOWN waits on one.
v1::TrackdbConfig WithWorkers() {
  v1::TrackdbConfig config;
  config.mutable_server()->set_resp_worker_threads(4);
  return config;
}
struct StoppableServer {
  StoppableServer() : server(WithWorkers()) {
    server.server().OnShutdownCommand([this] {
      ++stops;
      stopped.Notify();
    });
  }
  TrackdbResp server;
  std::atomic<int> stops{0};
  absl::Notification stopped;
};

TEST(ShutdownCommandTest, RefusedWhereNothingCanStopTheProcess) {
  TrackdbResp server;
  RawClient c(server.port());
  EXPECT_EQ(c.Call({"SHUTDOWN"}), kFailed);
  EXPECT_EQ(c.Call({"PING"}), "+PONG\r\n");
}

TEST(ShutdownCommandTest, StopsTheProcessWithoutAReply) {
  for (const std::vector<std::string>& call :
       std::vector<std::vector<std::string>>{{"SHUTDOWN"},
                                             {"SHUTDOWN", "NOSAVE"},
                                             {"SHUTDOWN", "SAVE", "NOW"},
                                             {"shutdown", "force", "save"}}) {
    StoppableServer s;
    RawClient c(s.server.port());
    ASSERT_EQ(c.Call({"SET", "k", "v"}), "+OK\r\n");
    c.Send(EncodeCommand(call));
    EXPECT_TRUE(s.stopped.WaitForNotificationWithTimeout(absl::Seconds(10)))
        << call[0];
    EXPECT_TRUE(c.Closed()) << absl::StrJoin(call, " ");
    EXPECT_EQ(s.stops.load(), 1);
    // A second SHUTDOWN while the process stops is refused.
    RawClient other(s.server.port());
    EXPECT_EQ(other.Call({"SHUTDOWN"}), kFailed);
    EXPECT_EQ(other.Call({"SHUTDOWN", "ABORT"}),
              "-ERR No shutdown in progress.\r\n");
  }
}

TEST(ShutdownCommandTest, AdminOnly) {
  v1::TrackdbConfig config;
  for (auto [name, role] : {std::pair{"reader", v1::USER_ROLE_READ_ONLY},
                            std::pair{"writer", v1::USER_ROLE_READ_WRITE}}) {
    v1::User* user = config.mutable_server()->add_users();
    user->set_name(name);
    user->set_password("pw");
    user->set_role(role);
  }
  TrackdbResp server(config);
  std::atomic<int> stops{0};
  server.server().OnShutdownCommand([&] { ++stops; });
  RawClient c(server.port());
  for (const char* name : {"reader", "writer"}) {
    ASSERT_EQ(c.Call({"AUTH", name, "pw"}), "+OK\r\n");
    EXPECT_THAT(c.Call({"SHUTDOWN"}), ::testing::StartsWith("-NOPERM"));
  }
  EXPECT_EQ(stops.load(), 0);
}

// A client that pulls once as a replica (it has applied nothing) and then
// stays connected, lagging.
std::string PullAsReplica(RawClient& replica, storage::TrackStore& store,
                          uint64_t next) {
  absl::StatusOr<std::string> replid = storage::PrimaryReplid(store);
  EXPECT_TRUE(replid.ok());
  return replica.Call(
      {"REPL.PULL", *replid, absl::StrCat(next), "7000", "0", "1000000"});
}

// A server with a write its one replica has not pulled.
class LaggingReplicaTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(writer.Call({"SET", "k", "v"}), "+OK\r\n");
    PullAsReplica(replica, s.server.store(), 1);
  }
  StoppableServer s;
  RawClient writer{s.server.port()};
  RawClient replica{s.server.port()};
  RawClient stopper{s.server.port()};
};

TEST_F(LaggingReplicaTest, ShutdownWaitsForItAndAbortEndsTheWait) {
  stopper.Send(EncodeCommand({"SHUTDOWN"}));
  // Still waiting for the replica.
  EXPECT_EQ(stopper.ReadReply(300), std::nullopt);
  EXPECT_EQ(s.stops.load(), 0);
  RawClient aborter(s.server.port());
  EXPECT_EQ(aborter.Call({"SHUTDOWN", "ABORT"}), "+OK\r\n");
  EXPECT_EQ(stopper.ReadReply(), kFailed);
  EXPECT_EQ(s.stops.load(), 0);
  EXPECT_EQ(writer.Call({"GET", "k"}), "$1\r\nv\r\n");

  // Again; now the replica catches up and the stop goes on.
  stopper.Send(EncodeCommand({"SHUTDOWN"}));
  EXPECT_EQ(stopper.ReadReply(300), std::nullopt);
  PullAsReplica(replica, s.server.store(),
                storage::LatestSequence(s.server.store()) + 1);
  EXPECT_TRUE(s.stopped.WaitForNotificationWithTimeout(absl::Seconds(10)));
  EXPECT_TRUE(stopper.Closed());
}

TEST_F(LaggingReplicaTest, ShutdownNowDoesNotWait) {
  stopper.Send(EncodeCommand({"SHUTDOWN", "NOW"}));
  EXPECT_TRUE(s.stopped.WaitForNotificationWithTimeout(absl::Seconds(2)));
  EXPECT_TRUE(stopper.Closed());
}

}  // namespace
}  // namespace trackdb::resp
