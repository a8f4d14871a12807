// Redis Cluster's protocol on trackdb (cluster_commands.cc, the routing in
// command.cc): slots, refusals and topology commands, compared with a real
// redis-server 7.0 in cluster mode where Redis has the same thing to say.
#include <unistd.h>

#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "service/resp/testing/resp_test_client.h"

namespace trackdb::resp {
namespace {

using testing::Differential;
using testing::RawClient;
using testing::TrackdbResp;

v1::TrackdbConfig ClusterConfig() {
  v1::TrackdbConfig config;
  config.mutable_server()->set_cluster_enabled(true);
  return config;
}

std::vector<std::string> RedisClusterArgs() {
  static int n = 0;
  // An explicit bus port: the default, port + 10000, overflows for the
  // ephemeral ports tests get.
  return {"--cluster-enabled",
          "yes",
          "--cluster-config-file",
          absl::StrCat("nodes-", getpid(), "-", ++n, ".conf"),
          "--cluster-port",
          absl::StrCat(testing::FreePort())};
}

std::string Id(char c) { return std::string(40, c); }

// Binary keys of 0 to 24 bytes, braces frequent, so that hash tags (empty,
// unclosed, nested) are common.
std::string RandomKey(std::mt19937& rng) {
  std::uniform_int_distribution<int> length(0, 24), byte(0, 255), pick(0, 5);
  std::string key;
  for (int i = length(rng); i > 0; --i) {
    const int p = pick(rng);
    key.push_back(p == 0 ? '{' : p == 1 ? '}' : static_cast<char>(byte(rng)));
  }
  return key;
}

TEST(ClusterCommandsTest, KeySlotEqualsRedisForRandomKeys) {
  Differential d(ClusterConfig(), RedisClusterArgs());
  std::mt19937 rng(20261127);
  std::vector<std::string> keys = {"", "{}", "{", "}", "a{}b", "{{a}}"};
  while (keys.size() < 10000) keys.push_back(RandomKey(rng));
  std::string bytes;
  for (const std::string& key : keys) {
    bytes += testing::EncodeCommand({"CLUSTER", "KEYSLOT", key});
  }
  d.redis().Send(bytes);
  d.trackdb().Send(bytes);
  int mismatches = 0;
  for (const std::string& key : keys) {
    const auto redis = d.redis().ReadReply();
    const auto trackdb = d.trackdb().ReadReply();
    ASSERT_TRUE(redis && trackdb);
    if (*redis != *trackdb && ++mismatches <= 5) {
      ADD_FAILURE() << ::testing::PrintToString(key) << ": " << *trackdb
                    << " vs Redis " << *redis;
    }
  }
  EXPECT_EQ(mismatches, 0);
}

// Cluster mode before any slot is assigned: every keyed command is
// CLUSTERDOWN on both, keyless ones run, and only database 0 exists.
TEST(ClusterCommandsTest, UnassignedSlotsAreDownAsInRedis) {
  Differential d(ClusterConfig(), RedisClusterArgs());
  const std::vector<std::vector<std::string>> commands = {
      {"GET", "foo"},
      {"SET", "foo", "bar"},
      {"GEOADD", "fleet", "13.4", "38.1", "car"},
      {"MSET", "a", "1", "b", "2"},
      {"MGET", "{t}a", "{t}b"},
      {"ZUNIONSTORE", "dst", "2", "a", "b"},
      {"PING"},
      {"DBSIZE"},
      {"SELECT", "0"},
      {"SELECT", "1"},
      {"SELECT", "x"},
      {"MOVE", "foo", "1"},
      {"CLUSTER", "KEYSLOT", "somekey"},
      {"CLUSTER", "KEYSLOT"},
      {"READONLY"},
      {"READWRITE"},
      {"ASKING"},
      {"INFO", "cluster"},
  };
  for (const auto& c : commands) EXPECT_SAME_REPLY(d, c);
}

TEST(ClusterCommandsTest, DisabledAnswersAsRedis) {
  Differential d;
  for (const auto& c :
       std::vector<std::vector<std::string>>{{"CLUSTER", "KEYSLOT", "a"},
                                             {"CLUSTER", "INFO"},
                                             {"CLUSTER", "SLOTS"},
                                             {"CLUSTER", "NOPE"},
                                             {"READONLY"},
                                             {"ASKING"},
                                             {"INFO", "cluster"},
                                             {"SELECT", "1"}}) {
    EXPECT_SAME_REPLY(d, c);
  }
  EXPECT_EQ(d.trackdb().Call({"CLUSTERX", "VERSION"}),
            "-ERR This instance has cluster support disabled\r\n");
}

// Cluster clients ask COMMAND GETKEYS for the keys of the commands whose
// keys move (numkeys, STORE options): trackdb's answers are Redis's.
TEST(ClusterCommandsTest, GetKeysAsRedis) {
  Differential d;
  const std::vector<std::vector<std::string>> calls = {
      {"get", "a"},
      {"mset", "a", "1", "b", "2"},
      {"del", "a", "b", "c"},
      {"zunionstore", "d", "2", "a", "b", "WEIGHTS", "1", "2"},
      {"zinterstore", "d", "3", "a", "b"},
      {"zdiff", "2", "a", "b", "WITHSCORES"},
      {"zinter", "1", "a"},
      {"sintercard", "2", "a", "b", "LIMIT", "1"},
      {"georadius", "g", "1", "2", "3", "km", "STORE", "s"},
      {"georadius", "g", "1", "2", "3", "km", "STOREDIST", "s", "COUNT", "1"},
      {"georadiusbymember", "g", "m", "3", "km", "STORE", "s"},
      {"georadius", "g", "1", "2", "3", "km"},
      {"geosearchstore", "d", "s", "FROMLONLAT", "1", "2", "BYRADIUS", "1",
       "km"},
      {"blpop", "a", "b", "0"},
      {"lmove", "a", "b", "LEFT", "RIGHT"},
      {"rename", "a", "b"},
      {"ping"},
      {"ping", "a"},
      {"nosuch", "a"},
      {"get"},
      {"get", "a", "b"},
      {"zunionstore", "d", "0", "a"},
      {"sort", "a", "LIMIT", "0", "1", "GET", "store", "STORE", "d1", "BY", "x",
       "STORE", "d2"},
      {"sort", "a", "STORE"},
      {"sort", "a", "ALPHA"},
      {"sort_ro", "a", "BY", "x"},
  };
  for (const auto& call : calls) {
    std::vector<std::string> argv = {"COMMAND", "GETKEYS"};
    argv.insert(argv.end(), call.begin(), call.end());
    EXPECT_SAME_REPLY(d, argv);
  }
}

// Two masters, this node (on its own port) with slots 0-8191 and a peer
// with the rest, and a slave of the peer.
std::string TwoShards(int my_port) {
  return absl::StrCat(Id('a'), " 127.0.0.1 ", my_port, " master - 0-8191\n",
                      Id('b'), " 127.0.0.1 7002 master - 8192-16383\n", Id('c'),
                      " 127.0.0.1 7003 slave ", Id('b'));
}

TEST(ClusterCommandsTest, SetNodesThenRoutesAsRedisCluster) {
  TrackdbResp server(ClusterConfig());
  RawClient c(server.port());
  EXPECT_EQ(c.Call({"CLUSTERX", "VERSION"}), ":-1\r\n");
  EXPECT_EQ(c.Call({"CLUSTER", "INFO"}),
            "-CLUSTERDOWN The cluster is not initialized\r\n");
  EXPECT_EQ(c.Call({"CLUSTERX", "SETNODEID", "short"}),
            "-ERR Invalid cluster node id\r\n");
  EXPECT_EQ(c.Call({"CLUSTERX", "SETNODEID", Id('a')}), "+OK\r\n");
  EXPECT_EQ(c.Call({"CLUSTERX", "SETNODES", "junk", "1"}),
            "-ERR Invalid cluster nodes info\r\n");
  EXPECT_EQ(c.Call({"CLUSTERX", "SETNODES", TwoShards(server.port()), "x"}),
            "-ERR Invalid cluster version\r\n");
  EXPECT_EQ(c.Call({"CLUSTERX", "SETNODES", TwoShards(server.port()), "2"}),
            "+OK\r\n");
  EXPECT_EQ(c.Call({"CLUSTERX", "SETNODES", TwoShards(server.port()), "1"}),
            "-ERR Invalid cluster version\r\n");
  EXPECT_EQ(c.Call({"CLUSTERX", "VERSION"}), ":2\r\n");
  EXPECT_EQ(c.Call({"CLUSTER", "MYID"}),
            absl::StrCat("$40\r\n", Id('a'), "\r\n"));

  // "bar" is slot 5061 (here), "foo" 12182 (the peer's).
  EXPECT_EQ(c.Call({"SET", "bar", "1"}), "+OK\r\n");
  EXPECT_EQ(c.Call({"GET", "bar"}), "$1\r\n1\r\n");
  EXPECT_EQ(c.Call({"GET", "foo"}), "-MOVED 12182 127.0.0.1:7002\r\n");
  EXPECT_EQ(c.Call({"GEOADD", "foo", "13.4", "38.1", "car"}),
            "-MOVED 12182 127.0.0.1:7002\r\n");
  EXPECT_EQ(c.Call({"GEOADD", "{bar}g", "13.4", "38.1", "car"}), ":1\r\n");
  EXPECT_EQ(c.Call({"MSET", "bar", "1", "foo", "2"}),
            "-CROSSSLOT Keys in request don't hash to the same slot\r\n");
  EXPECT_EQ(c.Call({"MSET", "{bar}1", "1", "{bar}2", "2"}), "+OK\r\n");
  // SORT's BY and GET patterns name keys of any slot: refused, as Redis
  // Cluster refuses them; a constant BY sorts nothing and is served.
  EXPECT_EQ(c.Call({"RPUSH", "{bar}l", "2", "1"}), ":2\r\n");
  EXPECT_EQ(c.Call({"SORT", "{bar}l", "BY", "w_*"}),
            "-ERR BY option of SORT denied in Cluster mode.\r\n");
  EXPECT_EQ(c.Call({"SORT", "{bar}l", "GET", "#"}),
            "-ERR GET option of SORT denied in Cluster mode.\r\n");
  EXPECT_EQ(c.Call({"SORT", "{bar}l", "BY", "nosort"}),
            "*2\r\n$1\r\n2\r\n$1\r\n1\r\n");
  EXPECT_EQ(c.Call({"SORT", "{bar}l", "STORE", "foo"}),
            "-CROSSSLOT Keys in request don't hash to the same slot\r\n");
  EXPECT_EQ(c.Call({"SORT", "{bar}l", "STORE", "{bar}s"}), ":2\r\n");
  EXPECT_EQ(c.Call({"ZUNIONSTORE", "{bar}d", "2", "{bar}1", "foo"}),
            "-CROSSSLOT Keys in request don't hash to the same slot\r\n");
  EXPECT_EQ(
      c.Call({"GEORADIUS", "{bar}g", "13", "38", "100", "km", "STORE", "foo"}),
      "-CROSSSLOT Keys in request don't hash to the same slot\r\n");
  // A script goes where its declared keys are, as Redis Cluster routes it.
  EXPECT_EQ(c.Call({"EVAL", "return redis.call('get', KEYS[1])", "1", "bar"}),
            "$1\r\n1\r\n");
  EXPECT_EQ(c.Call({"EVAL", "return 1", "1", "foo"}),
            "-MOVED 12182 127.0.0.1:7002\r\n");
  EXPECT_EQ(c.Call({"EVAL", "return 1", "2", "bar", "foo"}),
            "-CROSSSLOT Keys in request don't hash to the same slot\r\n");
  EXPECT_EQ(c.Call({"EVAL", "return 1", "0", "foo"}), ":1\r\n");
  // Inside a script: keys of another node, or of another slot than the
  // script's keys, are refused with Redis's words.
  EXPECT_EQ(c.Call({"EVAL", "return redis.pcall('get', 'foo')", "0"}),
            "-ERR Script attempted to access a non local key in a cluster "
            "node\r\n");
  EXPECT_EQ(c.Call({"EVAL", "return redis.pcall('get', 'b')", "1", "bar"}),
            "-ERR Script attempted to access keys that do not hash to the "
            "same slot\r\n");
  EXPECT_EQ(c.Call({"EVAL",
                    "#!lua flags=allow-cross-slot-keys\n"
                    "return redis.call('get', 'b')",
                    "1", "bar"}),
            "$-1\r\n");
  EXPECT_EQ(c.Call({"EVAL", "return redis.call('get', '{bar}x')", "1", "bar"}),
            "$-1\r\n");
  EXPECT_EQ(c.Call({"SELECT", "1"}),
            "-ERR SELECT is not allowed in cluster mode\r\n");
  EXPECT_EQ(c.Call({"COPY", "{bar}1", "{bar}3", "DB", "1"}),
            "-ERR Copying to another database is not allowed in cluster "
            "mode\r\n");
  EXPECT_EQ(c.Call({"COPY", "{bar}1", "{bar}3", "DB", "0"}), ":1\r\n");
  EXPECT_EQ(c.Call({"MOVE", "{bar}1", "1"}),
            "-ERR MOVE is not allowed in cluster mode\r\n");

  const std::string info = c.Call({"CLUSTER", "INFO"});
  EXPECT_THAT(info, ::testing::HasSubstr("cluster_state:ok\r\n"));
  EXPECT_THAT(info, ::testing::HasSubstr("cluster_known_nodes:3\r\n"));
  EXPECT_THAT(info, ::testing::HasSubstr("cluster_size:2\r\n"));
  EXPECT_THAT(info, ::testing::HasSubstr("cluster_current_epoch:2\r\n"));
  const std::string nodes = c.Call({"CLUSTER", "NODES"});
  EXPECT_THAT(nodes, ::testing::HasSubstr(absl::StrCat(
                         Id('a'), " 127.0.0.1:", server.port(), "@",
                         server.port() + 10000, " myself,master - 0 ")));
  EXPECT_THAT(nodes, ::testing::HasSubstr(" 2 connected 0-8191\n"));
  EXPECT_THAT(nodes,
              ::testing::HasSubstr(absl::StrCat(" slave ", Id('b'), " 0 ")));
  EXPECT_EQ(
      c.Call({"CLUSTER", "SLOTS"}),
      absl::StrCat(
          "*2\r\n*3\r\n:0\r\n:8191\r\n*4\r\n$9\r\n127.0.0.1\r\n:",
          server.port(), "\r\n$40\r\n", Id('a'), "\r\n*0\r\n",
          "*4\r\n:8192\r\n:16383\r\n*4\r\n$9\r\n127.0.0.1\r\n:7002\r\n",
          "$40\r\n", Id('b'), "\r\n*0\r\n",
          "*4\r\n$9\r\n127.0.0.1\r\n:7003\r\n$40\r\n", Id('c'), "\r\n*0\r\n"));
}

// A replica serves its master's slots' reads, and sends writes there.
TEST(ClusterCommandsTest, AReplicaServesReadsAndMovesWrites) {
  TrackdbResp server(ClusterConfig());
  RawClient c(server.port());
  const std::string nodes =
      absl::StrCat(Id('b'), " 127.0.0.1 7002 master - 0-16383\n", Id('c'),
                   " 127.0.0.1 ", server.port(), " slave ", Id('b'));
  ASSERT_EQ(c.Call({"CLUSTERX", "SETNODES", nodes, "1"}), "+OK\r\n");
  EXPECT_EQ(c.Call({"CLUSTER", "MYID"}),
            absl::StrCat("$40\r\n", Id('c'), "\r\n"));
  EXPECT_EQ(c.Call({"GET", "foo"}), "$-1\r\n");
  EXPECT_EQ(c.Call({"SET", "foo", "1"}), "-MOVED 12182 127.0.0.1:7002\r\n");
}

// A transaction is routed as one call: all its keys in one slot this node
// serves, or EXEC answers the redirection alone and discards it (and the
// watched keys), as Redis Cluster does. One node serving every slot on
// each side.
TEST(ClusterCommandsTest, TransactionsRouteAsOneCallAsInRedis) {
  Differential d(ClusterConfig(), RedisClusterArgs());
  ASSERT_EQ(d.redis().Call({"CLUSTER", "ADDSLOTSRANGE", "0", "16383"}),
            "+OK\r\n");
  ASSERT_EQ(d.trackdb().Call({"CLUSTERX", "SETNODEID", Id('a')}), "+OK\r\n");
  ASSERT_EQ(d.trackdb().Call(
                {"CLUSTERX", "SETNODES",
                 absl::StrCat(Id('a'), " 127.0.0.1 ", d.trackdb_server().port(),
                              " master - 0-16383"),
                 "1"}),
            "+OK\r\n");
  // Redis turns its state ok a moment after its slots are assigned.
  for (int i = 0; i < 100; ++i) {
    if (d.redis().Call({"CLUSTER", "INFO"}).find("cluster_state:ok") !=
        std::string::npos) {
      break;
    }
    usleep(50 * 1000);
  }
  const std::vector<std::vector<std::string>> calls = {
      {"MULTI"},
      {"SET", "{t}a", "1"},
      {"INCR", "{t}b"},
      {"GET", "{t}a"},
      {"EXEC"},
      // Two slots: CROSSSLOT at EXEC, the transaction gone.
      {"MULTI"},
      {"SET", "a", "1"},
      {"SET", "b", "2"},
      {"EXEC"},
      {"EXEC"},
      {"GET", "a"},
      // A read and a write of two slots: the same.
      {"MULTI"},
      {"GET", "a"},
      {"SET", "b", "2"},
      {"EXEC"},
      // One call of two slots is refused as it is queued: EXECABORT.
      {"MULTI"},
      {"MSET", "a", "1", "b", "2"},
      {"PING"},
      {"EXEC"},
      // No keys, or keys of one slot across commands and subcommands.
      {"MULTI"},
      {"PING"},
      {"EXEC"},
      {"MULTI"},
      {"RPUSH", "{u}l", "x"},
      {"OBJECT", "ENCODING", "{u}l"},
      {"LPOP", "{u}l"},
      {"EXEC"},
      // The watched keys go with a transaction refused at EXEC.
      {"WATCH", "{t}a"},
      {"MULTI"},
      {"SET", "a", "1"},
      {"SET", "b", "2"},
      {"EXEC"}};
  for (const auto& c : calls) EXPECT_SAME_REPLY(d, c);
  RawClient redis_other(d.redis_port());
  RawClient trackdb_other(d.trackdb_server().port());
  ASSERT_EQ(redis_other.Call({"SET", "{t}a", "changed"}), "+OK\r\n");
  ASSERT_EQ(trackdb_other.Call({"SET", "{t}a", "changed"}), "+OK\r\n");
  for (const auto& c : std::vector<std::vector<std::string>>{
           {"MULTI"}, {"GET", "{t}a"}, {"EXEC"}}) {
    EXPECT_SAME_REPLY(d, c);
  }
  EXPECT_EQ(d.trackdb().Call({"EXEC"}), "-ERR EXEC without MULTI\r\n");
}

}  // namespace
}  // namespace trackdb::resp
