// Connection and protocol behaviour, compared byte for byte with a real
// redis-server 7.0 started beside trackdb's RESP server.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "service/resp/testing/resp_test_client.h"

namespace trackdb::resp {
namespace {

using testing::Differential;
using testing::RawClient;

TEST(ConnectionCommandsTest, PingEchoAndArgumentErrors) {
  Differential d;
  EXPECT_SAME_REPLY(d, {"PING"});
  EXPECT_SAME_REPLY(d, {"ping", "hello world"});
  EXPECT_SAME_REPLY(d, {"PING", "a", "b"});
  EXPECT_SAME_REPLY(d, {"ECHO", std::string("bin\0\r\nary", 8)});
  EXPECT_SAME_REPLY(d, {"ECHO"});
  EXPECT_SAME_REPLY(d, {"NOSUCHCOMMAND", "a", "b"});
  EXPECT_SAME_REPLY(d, {"nosuch", std::string(200, 'x'), "y"});
  EXPECT_SAME_REPLY(d, {"nosuch"});
  EXPECT_SAME_REPLY(d, {"CONFIG"});
  EXPECT_SAME_REPLY(d, {"CONFIG", "nosuch"});
  EXPECT_SAME_REPLY(d, {"CONFIG", "GET"});
  EXPECT_SAME_REPLY(d, {"CONFIG", "GET", "no-such-param*"});
  EXPECT_SAME_REPLY(d, {"CONFIG", "GET", "maxclients"});
  EXPECT_SAME_REPLY(d, {"CONFIG", "SET", "no-such-param", "1"});
  EXPECT_SAME_REPLY(d, {"FUNCTION", "FLUSH"});
  EXPECT_SAME_REPLY(d, {"SCRIPT", "FLUSH"});
}

TEST(ConnectionCommandsTest, SelectAndClientName) {
  Differential d;
  EXPECT_SAME_REPLY(d, {"SELECT", "15"});
  EXPECT_SAME_REPLY(d, {"SELECT", "16"});
  EXPECT_SAME_REPLY(d, {"SELECT", "-1"});
  EXPECT_SAME_REPLY(d, {"SELECT", "x"});
  EXPECT_SAME_REPLY(d, {"CLIENT", "GETNAME"});
  EXPECT_SAME_REPLY(d, {"CLIENT", "SETNAME", "worker-1"});
  EXPECT_SAME_REPLY(d, {"CLIENT", "GETNAME"});
  EXPECT_SAME_REPLY(d, {"CLIENT", "SETNAME", "has space"});
  EXPECT_SAME_REPLY(d, {"CLIENT", "SETNAME"});
  EXPECT_SAME_REPLY(d, {"CLIENT", "NOSUCH"});
  // IDs differ between servers; both are integers.
  auto ids = d.Call({"CLIENT", "ID"});
  EXPECT_EQ(ids.redis[0], ':');
  EXPECT_EQ(ids.trackdb[0], ':');
  auto list = d.trackdb().Call({"CLIENT", "LIST"});
  EXPECT_THAT(list, ::testing::HasSubstr("name=worker-1"));
  EXPECT_THAT(list, ::testing::HasSubstr("db=15"));
}

TEST(ConnectionCommandsTest, HelloSwitchesToResp3) {
  Differential d;
  EXPECT_SAME_REPLY(d, {"HELLO", "4"});
  EXPECT_SAME_REPLY(d, {"HELLO", "x"});
  EXPECT_SAME_REPLY(d, {"HELLO", "3", "BOGUS"});
  // The map's id differs; compare everything else.
  auto hello = d.Call({"HELLO", "3"});
  auto strip_id = [](std::string s) {
    const size_t at = s.find("$2\r\nid\r\n:");
    const size_t end = s.find("\r\n", at + 9);
    return s.erase(at, end - at);
  };
  EXPECT_EQ(strip_id(hello.trackdb), strip_id(hello.redis));
  EXPECT_THAT(hello.trackdb, ::testing::StartsWith("%7\r\n"));
  // RESP3 nulls.
  EXPECT_SAME_REPLY(d, {"CLIENT", "GETNAME"});
  EXPECT_SAME_REPLY(d, {"CONFIG", "GET", "maxclients"});
  auto hello2 = d.Call({"HELLO", "2", "SETNAME", "x"});
  EXPECT_EQ(strip_id(hello2.trackdb), strip_id(hello2.redis));
}

TEST(ConnectionCommandsTest, RequirepassAndAuth) {
  v1::TrackdbConfig config;
  config.mutable_server()->set_requirepass("s3cret");
  Differential d(config, {"--requirepass", "s3cret"});
  EXPECT_SAME_REPLY(d, {"PING"});
  EXPECT_SAME_REPLY(d, {"CONFIG", "GET", "maxclients"});
  EXPECT_SAME_REPLY(d, {"HELLO", "3"});
  EXPECT_SAME_REPLY(d, {"AUTH", "wrong"});
  EXPECT_SAME_REPLY(d, {"AUTH", "someone", "s3cret"});
  EXPECT_SAME_REPLY(d, {"AUTH", "a", "b", "c"});
  EXPECT_SAME_REPLY(d, {"AUTH", "s3cret"});
  EXPECT_SAME_REPLY(d, {"PING"});
  EXPECT_SAME_REPLY(d, {"AUTH", "default", "s3cret"});
}

TEST(ConnectionCommandsTest, AuthWithoutAPasswordConfigured) {
  Differential d;
  EXPECT_SAME_REPLY(d, {"AUTH", "x"});
  EXPECT_SAME_REPLY(d, {"AUTH", "default", "x"});
}

TEST(ConnectionCommandsTest, InlineCommandsAndPipelining) {
  Differential d;
  // Three inline commands and two multibulk ones in one write.
  const std::string pipeline =
      "PING\r\nECHO \"two words\"\r\nECHO 'a\\'b'\n"
      "*1\r\n$4\r\nPING\r\n*2\r\n$4\r\nECHO\r\n$3\r\nxyz\r\n";
  d.redis().Send(pipeline);
  d.trackdb().Send(pipeline);
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(d.trackdb().ReadReply(), d.redis().ReadReply()) << "reply " << i;
  }
}

// CLIENT REPLY OFF, SKIP and ON in one pipeline, with a pipelined run of
// SETs (served as a group when replies go out) and errors among them:
// exactly the replies Redis sends, in order, and the writes all made.
TEST(ConnectionCommandsTest, ClientReplyOffSkipAndOn) {
  Differential d;
  std::string pipeline;
  for (const std::vector<std::string>& argv :
       std::vector<std::vector<std::string>>{
           {"SET", "a", "1"},
           {"CLIENT", "REPLY", "SKIP"},
           {"SET", "b", "2"},  // skipped
           {"GET", "a"},
           {"CLIENT", "REPLY", "OFF"},
           {"SET", "c", "3"},
           {"SET", "d", "4"},
           {"INCR", "nope", "x"},  // an error, not sent either
           {"CLIENT", "REPLY", "SKIP"},
           {"CLIENT", "REPLY", "ON"},
           {"MGET", "a", "b", "c", "d"},
           {"CLIENT", "REPLY", "SKIP"},
           {"CLIENT", "REPLY", "SKIP"},
           {"PING"},  // skipped
           {"CLIENT", "REPLY", "MAYBE"},
           {"ECHO", "last"}}) {
    pipeline += testing::EncodeCommand(argv);
  }
  d.redis().Send(pipeline);
  d.trackdb().Send(pipeline);
  // Redis's replies: SET a, GET a, ON's OK, MGET, the syntax error, ECHO
  // (a SKIP after a SKIP skips the command after it: PING).
  for (int i = 0; i < 6; ++i) {
    const auto want = d.redis().ReadReply();
    ASSERT_TRUE(want.has_value()) << "reply " << i;
    EXPECT_EQ(d.trackdb().ReadReply(), want) << "reply " << i;
  }
  EXPECT_EQ(d.trackdb().ReadReply(300), std::nullopt);  // nothing more
  EXPECT_SAME_REPLY(d, {"MGET", "a", "b", "c", "d"});
}

// A SKIP before a blocking pop skips the pop's answer when it comes (here
// its timeout's nil), not the command after it.
TEST(ConnectionCommandsTest, ClientReplySkipWaitsForABlockedPopsAnswer) {
  Differential d;
  std::string pipeline;
  for (const std::vector<std::string>& argv :
       std::vector<std::vector<std::string>>{
           {"CLIENT", "REPLY", "SKIP"}, {"BLPOP", "nolist", "0.2"}, {"PING"}}) {
    pipeline += testing::EncodeCommand(argv);
  }
  d.redis().Send(pipeline);
  d.trackdb().Send(pipeline);
  const auto want = d.redis().ReadReply();
  ASSERT_EQ(want, "+PONG\r\n");
  EXPECT_EQ(d.trackdb().ReadReply(), want);
  EXPECT_EQ(d.trackdb().ReadReply(300), std::nullopt);
}

TEST(ConnectionCommandsTest, ProtocolErrorsReplyThenClose) {
  const std::string bad_inputs[] = {
      "*x\r\n",          "*1\r\n+PING\r\n",
      "*1\r\n$-5\r\n",   "ECHO \"unterminated\r\n",
      "*3000000000\r\n",
  };
  for (const std::string& input : bad_inputs) {
    Differential d;
    auto replies = d.SendRaw(input);
    EXPECT_EQ(replies.trackdb, replies.redis) << input;
    EXPECT_TRUE(d.trackdb().Closed()) << input;
    // The server stays up for everyone else.
    RawClient other(d.trackdb_server().port());
    EXPECT_EQ(other.Call({"PING"}), "+PONG\r\n");
  }
}

TEST(ConnectionCommandsTest, QuitRepliesOkAndCloses) {
  Differential d;
  EXPECT_SAME_REPLY(d, {"QUIT"});
  EXPECT_TRUE(d.trackdb().Closed());
}

// DEBUG is refused by default, with Redis 7's words (its default is "no"
// too); "local" allows it from loopback, "yes" from anyone.
TEST(ConnectionCommandsTest, DebugIsRefusedUnlessEnabled) {
  Differential d;
  EXPECT_SAME_REPLY(d, {"DEBUG", "SLEEP", "0"});
  for (const char* enabled : {"local", "yes"}) {
    v1::TrackdbConfig config;
    config.mutable_server()->set_enable_debug_command(enabled);
    testing::TrackdbResp server(config);
    RawClient client(server.port());
    EXPECT_EQ(client.Call({"DEBUG", "SLEEP", "0"}), "+OK\r\n") << enabled;
  }
}

TEST(ConnectionCommandsTest, ASlowCommandDoesNotStallOtherConnections) {
  v1::TrackdbConfig config;
  config.mutable_server()->set_resp_threads(1);  // all on one loop
  config.mutable_server()->set_enable_debug_command("local");
  testing::TrackdbResp server(config);
  RawClient slow(server.port());
  slow.Send(testing::EncodeCommand({"DEBUG", "SLEEP", "2"}));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  // While a worker sleeps, the loop serves other connections at once.
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 3; ++i) {
    RawClient fast(server.port());
    EXPECT_EQ(fast.Call({"PING"}), "+PONG\r\n");
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
  EXPECT_EQ(slow.ReadReply(), "+OK\r\n");
}

// A command run on a worker is still the client's last command.
TEST(ConnectionCommandsTest, ClientListShowsACommandRunOnAWorker) {
  testing::TrackdbResp server;
  RawClient worker_user(server.port());
  EXPECT_EQ(worker_user.Call({"CLIENT", "SETNAME", "scanner"}), "+OK\r\n");
  EXPECT_EQ(worker_user.Call({"KEYS", "nothing*"}), "*0\r\n");
  RawClient observer(server.port());
  const std::string list = observer.Call({"CLIENT", "LIST"});
  EXPECT_THAT(list, ::testing::ContainsRegex("name=scanner [^\n]* cmd=keys"));
}

// The integer of a ":N" reply.
std::string IntegerOf(const std::string& reply) {
  return reply.substr(1, reply.size() - 3);
}

// A field of CLIENT INFO's line ("addr", "id", ...).
std::string InfoField(RawClient& client, const std::string& field) {
  const std::string info = client.Call({"CLIENT", "INFO"});
  const size_t at = info.find(" " + field + "=") + field.size() + 2;
  return info.substr(at, info.find(' ', at) - at);
}

// CLIENT UNBLOCK and CLIENT KILL on the server at `port`, as a transcript
// of each step's reply and of which connections it closed.
std::vector<std::string> KillAndUnblock(int port) {
  std::vector<std::string> out;
  RawClient killer(port), waiter(port), subscriber(port), victim(port),
      by_addr(port);
  auto closed = [](RawClient& c) { return c.Closed(2000) ? "closed" : "open"; };
  const std::string waiter_id = IntegerOf(waiter.Call({"CLIENT", "ID"}));
  for (const char* reason : {"TIMEOUT", "ERROR"}) {
    waiter.Send(testing::EncodeCommand({"BLPOP", "q", "0"}));
    EXPECT_EQ(waiter.ReadReply(200), std::nullopt);
    out.push_back(killer.Call({"CLIENT", "UNBLOCK", waiter_id, reason}));
    out.push_back(waiter.ReadReply().value_or("<none>"));
  }
  out.push_back(killer.Call({"CLIENT", "UNBLOCK", waiter_id}));  // not waiting
  out.push_back(subscriber.Call({"SUBSCRIBE", "ch"}));
  out.push_back(killer.Call({"CLIENT", "KILL", "TYPE", "pubsub"}));
  out.push_back(closed(subscriber));
  const std::string victim_id = IntegerOf(victim.Call({"CLIENT", "ID"}));
  out.push_back(killer.Call({"CLIENT", "KILL", "ID", victim_id}));
  out.push_back(closed(victim));
  out.push_back(killer.Call({"CLIENT", "KILL", "ID", victim_id}));
  const std::string addr = InfoField(by_addr, "addr");
  out.push_back(killer.Call({"CLIENT", "KILL", addr}));
  out.push_back(closed(by_addr));
  out.push_back(killer.Call({"CLIENT", "KILL", addr}));
  out.push_back(killer.Call({"CLIENT", "KILL", "USER", "default"}));
  out.push_back(closed(waiter));
  const std::string killer_id = IntegerOf(killer.Call({"CLIENT", "ID"}));
  out.push_back(
      killer.Call({"CLIENT", "KILL", "ID", killer_id, "SKIPME", "no"}));
  out.push_back(closed(killer));
  return out;
}

// CLIENT KILL and CLIENT UNBLOCK do to connections what Redis's do, and
// refuse what Redis refuses, in its words.
TEST(ConnectionCommandsTest, ClientKillAndUnblockAsRedis) {
  testing::RedisServerProcess redis;
  testing::TrackdbResp trackdb;
  const std::vector<std::string> redis_steps = KillAndUnblock(redis.port());
  EXPECT_EQ(KillAndUnblock(trackdb.port()), redis_steps);
  EXPECT_THAT(redis_steps, ::testing::Contains("-UNBLOCKED client unblocked "
                                               "via CLIENT UNBLOCK\r\n"));
  Differential d;
  for (const auto& call : std::vector<std::vector<std::string>>{
           {"CLIENT", "KILL"},
           {"CLIENT", "KILL", "ID", "x"},
           {"CLIENT", "KILL", "ID", "0"},
           {"CLIENT", "KILL", "ID", "99999"},
           {"CLIENT", "KILL", "ID", "99999", "SKIPME"},
           {"CLIENT", "KILL", "TYPE", "Nope"},
           {"CLIENT", "KILL", "TYPE", "master"},
           {"CLIENT", "KILL", "USER", "nobody"},
           {"CLIENT", "KILL", "SKIPME", "maybe"},
           {"CLIENT", "KILL", "FOO", "bar"},
           {"CLIENT", "KILL", "1.2.3.4:5"},
           {"CLIENT", "KILL", "LADDR", "1.2.3.4:5", "ADDR", "1.2.3.4:6"},
           {"CLIENT", "UNBLOCK"},
           {"CLIENT", "UNBLOCK", "x"},
           {"CLIENT", "UNBLOCK", "1", "FOO"},
           {"CLIENT", "UNBLOCK", "1", "TIMEOUT", "x"},
           {"CLIENT", "UNBLOCK", "99999"},
           {"CLIENT", "LIST", "TYPE", "pubsub"},
       }) {
    EXPECT_SAME_REPLY(d, call);
  }
}

TEST(ConnectionCommandsTest, MaxClientsRefusesWithRedisError) {
  v1::TrackdbConfig config;
  config.mutable_server()->set_resp_max_clients(2);
  testing::TrackdbResp server(config);
  RawClient a(server.port()), b(server.port());
  EXPECT_EQ(a.Call({"PING"}), "+PONG\r\n");
  EXPECT_EQ(b.Call({"PING"}), "+PONG\r\n");
  RawClient c(server.port());
  EXPECT_EQ(c.ReadReply(), "-ERR max number of clients reached\r\n");
  EXPECT_TRUE(c.Closed());
}

TEST(ConnectionCommandsTest, ThousandsOfIdleConnections) {
  testing::TrackdbResp server;
  std::vector<std::unique_ptr<RawClient>> idle;
  // Client and server share this process's descriptors: stay under them.
  struct rlimit limit;
  getrlimit(RLIMIT_NOFILE, &limit);
  const int connections =
      static_cast<int>(std::min<rlim_t>(2000, (limit.rlim_cur - 256) / 2));
  ASSERT_GE(connections, 400) << "open-file limit too low for this test";
  for (int i = 0; i < connections; ++i) {
    idle.push_back(std::make_unique<RawClient>(server.port()));
  }
  RawClient active(server.port());
  EXPECT_EQ(active.Call({"PING"}), "+PONG\r\n");
  EXPECT_EQ(idle.back()->Call({"ECHO", "still here"}), "$10\r\nstill here\r\n");
}

// Replies larger than the socket can take at once, to a client that reads
// only after sending more: the rest goes out in the background, in order,
// and the connection keeps serving. Requests larger than one read arrive
// whole.
TEST(ConnectionCommandsTest, LargeRequestsAndRepliesToASlowReader) {
  testing::TrackdbResp server;
  RawClient client(server.port());
  const std::string big(8 << 20, 'v');
  EXPECT_EQ(client.Call({"SET", "big", big}), "+OK\r\n");
  const std::string get = testing::EncodeCommand({"GET", "big"});
  client.Send(get + get + testing::EncodeCommand({"PING"}));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  client.Send(testing::EncodeCommand({"ECHO", "after"}));
  const std::string bulk =
      "$" + std::to_string(big.size()) + "\r\n" + big + "\r\n";
  EXPECT_EQ(client.ReadReply(), bulk);
  EXPECT_EQ(client.ReadReply(), bulk);
  EXPECT_EQ(client.ReadReply(), "+PONG\r\n");
  EXPECT_EQ(client.ReadReply(), "$5\r\nafter\r\n");
}

}  // namespace
}  // namespace trackdb::resp
