// Redis's per-client limits on trackdb's RESP door: the idle timeout, the
// output limit, and replies to a pipeline sent in pieces, so that a client
// that pipelines and does not read holds about one piece of replies.

#include <chrono>
#include <string>
#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "service/resp/testing/resp_test_client.h"

namespace trackdb::resp {
namespace {

using testing::EncodeCommand;
using testing::RawClient;

TEST(ClientLimitsTest, IdleConnectionsAreClosedAfterTheTimeout) {
  v1::TrackdbConfig config;
  config.mutable_server()->set_resp_idle_timeout_s(1);
  testing::TrackdbResp server(config);
  RawClient idle(server.port()), busy(server.port());
  EXPECT_EQ(idle.Call({"PING"}), "+PONG\r\n");
  // Busy: a command every 300 ms for 2.4 s, past the timeout.
  for (int i = 0; i < 8; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    ASSERT_EQ(busy.Call({"PING"}), "+PONG\r\n") << "closed after " << i;
  }
  EXPECT_TRUE(idle.Closed(/*timeout_ms=*/500));
  EXPECT_FALSE(busy.Closed(/*timeout_ms=*/100));
}

TEST(ClientLimitsTest, TimeoutIsLiveAndZeroMeansNever) {
  testing::TrackdbResp server;
  RawClient admin(server.port());
  EXPECT_EQ(admin.Call({"CONFIG", "GET", "timeout"}),
            "*2\r\n$7\r\ntimeout\r\n$1\r\n0\r\n");
  RawClient before(server.port());
  EXPECT_EQ(before.Call({"PING"}), "+PONG\r\n");
  EXPECT_EQ(admin.Call({"CONFIG", "SET", "timeout", "1"}), "+OK\r\n");
  EXPECT_EQ(admin.Call({"CONFIG", "SET", "timeout", "-1"}),
            "-ERR CONFIG SET failed (possibly related to argument 'timeout') "
            "- argument must be between 0 and 2147483647 inclusive\r\n");
  // A connection picks the new timeout up with its next request.
  EXPECT_EQ(before.Call({"PING"}), "+PONG\r\n");
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  EXPECT_TRUE(before.Closed(/*timeout_ms=*/500));
  EXPECT_TRUE(admin.Closed(/*timeout_ms=*/500)) << "idle as well";
  RawClient admin_again(server.port());
  EXPECT_EQ(admin_again.Call({"CONFIG", "SET", "timeout", "0"}), "+OK\r\n");
  RawClient after(server.port());
  EXPECT_EQ(after.Call({"PING"}), "+PONG\r\n");
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  EXPECT_EQ(after.Call({"PING"}), "+PONG\r\n");
}

TEST(ClientLimitsTest, ARequestThatTakesLongerThanTheTimeoutIsNotIdle) {
  v1::TrackdbConfig config;
  config.mutable_server()->set_resp_idle_timeout_s(1);
  config.mutable_server()->set_enable_debug_command("yes");
  testing::TrackdbResp server(config);
  RawClient client(server.port());
  EXPECT_EQ(client.Call({"DEBUG", "SLEEP", "1.5"}), "+OK\r\n");
  EXPECT_EQ(client.Call({"PING"}), "+PONG\r\n");
}

// A pipeline of large replies to a client that does not read: trackd
// serves a piece of it, then waits for the client to take the replies
// before serving more. Every reply still comes, in order.
TEST(ClientLimitsTest, APipelineIsServedInPiecesAsItsRepliesAreRead) {
  testing::TrackdbResp server;
  RawClient client(server.port()), observer(server.port());
  const std::string big(1 << 20, 'v');
  ASSERT_EQ(client.Call({"SET", "big", big}), "+OK\r\n");
  constexpr int kPairs = 200;  // 200 MiB of replies if served at once
  std::string pipeline;
  for (int i = 0; i < kPairs; ++i) {
    pipeline += EncodeCommand({"GET", "big"}) + EncodeCommand({"INCR", "n"});
  }
  client.Send(pipeline);
  // Served so far, once trackd stops: what the socket buffers took, a few
  // MiB, not all 200.
  int n = -1;
  for (int stable = 0; stable < 3;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    const std::string reply = observer.Call({"GET", "n"});
    ASSERT_THAT(reply, ::testing::StartsWith("$"));
    const int now = std::stoi(reply.substr(reply.find("\r\n") + 2));
    stable = now == n ? stable + 1 : 0;
    n = now;
  }
  EXPECT_LT(n, 40) << "served " << n << " of " << kPairs
                   << " before the client read anything";
  const std::string bulk = "$1048576\r\n" + big + "\r\n";
  for (int i = 1; i <= kPairs; ++i) {
    ASSERT_EQ(client.ReadReply(), bulk) << "reply " << i;
    ASSERT_EQ(client.ReadReply(), ":" + std::to_string(i) + "\r\n");
  }
  EXPECT_EQ(client.Call({"PING"}), "+PONG\r\n");
}

TEST(ClientLimitsTest, AReplyPastTheOutputLimitClosesTheConnection) {
  v1::TrackdbConfig config;
  config.mutable_server()->set_resp_max_output_bytes(2 << 20);
  testing::TrackdbResp server(config);
  RawClient client(server.port());
  ASSERT_EQ(client.Call({"SET", "small", std::string(1 << 20, 's')}),
            "+OK\r\n");
  ASSERT_EQ(client.Call({"SET", "big", std::string(3 << 20, 'b')}), "+OK\r\n");
  EXPECT_EQ(client.Call({"STRLEN", "small"}), ":1048576\r\n");
  client.Send(EncodeCommand({"GET", "big"}));
  EXPECT_TRUE(client.Closed());
  RawClient other(server.port());
  EXPECT_EQ(other.Call({"GET", "small"}),
            "$1048576\r\n" + std::string(1 << 20, 's') + "\r\n");
}

}  // namespace
}  // namespace trackdb::resp
