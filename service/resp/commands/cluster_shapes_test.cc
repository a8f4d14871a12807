// CLUSTER SLOTS, SHARDS, NODES and INFO on trackdb against a real Redis
// Cluster: six redis-server 7.0 nodes (three masters, a replica each) made
// one cluster by `redis-cli --cluster create`, and a trackdb node given the
// same topology (the same ids, addresses, roles and slots) with CLUSTERX
// and told it is the first node. The replies must be Redis's, byte for
// byte, where the values are the topology's; what a real cluster measures
// (ping and pong times, epochs, replication offsets, message counters) is
// compared by shape.
#include <cstdlib>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "service/resp/testing/reply_helpers.h"
#include "service/resp/testing/resp_test_client.h"

namespace trackdb::resp {
namespace {

using testing::BulkText;
using testing::RawClient;
using testing::RedisServerProcess;
using testing::TrackdbResp;

int Count(absl::string_view text, absl::string_view what) {
  int n = 0;
  for (size_t at = text.find(what); at != absl::string_view::npos;
       at = text.find(what, at + 1)) {
    ++n;
  }
  return n;
}

class RedisCluster {
 public:
  RedisCluster() {
    std::vector<std::string> addresses;
    for (int i = 0; i < 6; ++i) {
      nodes_.push_back(
          std::make_unique<RedisServerProcess>(std::vector<std::string>{
              "--cluster-enabled", "yes", "--cluster-config-file",
              absl::StrCat("shapes-", getpid(), "-", i, ".conf"),
              "--cluster-port", absl::StrCat(testing::FreePort())}));
      addresses.push_back(absl::StrCat("127.0.0.1:", nodes_.back()->port()));
    }
    const std::string create = absl::StrCat(
        "redis-cli --cluster create ", absl::StrJoin(addresses, " "),
        " --cluster-replicas 1 --cluster-yes >/dev/null 2>&1");
    EXPECT_EQ(std::system(create.c_str()), 0) << create;
  }

  int port(int i) const { return nodes_[i]->port(); }

  // Whether every node reports cluster_state:ok and the first sees every
  // replica online.
  bool Settled() {
    for (const auto& node : nodes_) {
      RawClient c(node->port());
      if (!absl::StrContains(c.Call({"CLUSTER", "INFO"}), "cluster_state:ok")) {
        return false;
      }
    }
    const std::string shards = RawClient(port(0)).Call({"CLUSTER", "SHARDS"});
    return Count(shards, "\r\nonline\r\n") == 6 &&
           Count(shards, "\r\nreplica\r\n") == 3;
  }

 private:
  std::vector<std::unique_ptr<RedisServerProcess>> nodes_;
};

// CLUSTER NODES text as CLUSTERX SETNODES takes it.
std::string SetNodesText(const std::string& nodes) {
  std::string text;
  for (absl::string_view line :
       absl::StrSplit(nodes, '\n', absl::SkipEmpty())) {
    std::vector<std::string> f = absl::StrSplit(line, ' ');
    const std::string host_port = f[1].substr(0, f[1].find('@'));
    const std::vector<std::string> hp = absl::StrSplit(host_port, ':');
    const bool master = absl::StrContains(f[2], "master");
    absl::StrAppend(&text, f[0], " ", hp[0], " ", hp[1],
                    master ? " master -" : " slave ", master ? "" : f[3]);
    for (size_t i = 8; i < f.size(); ++i) absl::StrAppend(&text, " ", f[i]);
    text += "\n";
  }
  return text;
}

// CLUSTER NODES lines with what a live cluster measures (pong time, config
// epoch) and the bus port blanked, in a set: Redis lists its nodes in no fixed
// order.
std::set<std::string> NodesShape(const std::string& nodes) {
  std::set<std::string> lines;
  for (absl::string_view line :
       absl::StrSplit(nodes, '\n', absl::SkipEmpty())) {
    std::vector<std::string> f = absl::StrSplit(line, ' ');
    // The bus port: these Redis nodes were given theirs (cluster_port).
    f[1] = f[1].substr(0, f[1].find('@')) + "@<cport>";
    f[5] = "<pong>";
    f[6] = "<epoch>";
    lines.insert(absl::StrJoin(f, " "));
  }
  return lines;
}

// CLUSTER SHARDS' shards (each a 4-element map) with replication offsets
// blanked, in a set: Redis lists its shards in no fixed order.
std::set<std::string> ShardsShape(const std::string& reply) {
  std::set<std::string> shards;
  const std::string marker = "*4\r\n$5\r\nslots\r\n";
  std::vector<std::string> parts = absl::StrSplit(
      reply.substr(reply.find("\r\n") + 2), marker, absl::SkipEmpty());
  for (std::string& part : parts) {
    std::vector<std::string> lines = absl::StrSplit(part, "\r\n");
    for (size_t i = 1; i < lines.size(); ++i) {
      if (lines[i - 1] == "replication-offset") lines[i] = ":<offset>";
    }
    shards.insert(absl::StrJoin(lines, "\r\n"));
  }
  return shards;
}

// CLUSTER INFO's fields, with their values where the topology decides them.
std::vector<std::string> InfoShape(const std::string& info) {
  std::vector<std::string> fields;
  for (absl::string_view line :
       absl::StrSplit(BulkText(info), "\r\n", absl::SkipEmpty())) {
    const std::vector<std::string> kv = absl::StrSplit(line, ':');
    const bool measured = absl::StartsWith(kv[0], "cluster_stats_") ||
                          absl::StrContains(kv[0], "epoch");
    if (!absl::StartsWith(kv[0], "cluster_stats_messages_") ||
        kv[0] == "cluster_stats_messages_sent" ||
        kv[0] == "cluster_stats_messages_received") {
      fields.push_back(measured ? kv[0] : std::string(line));
    }
  }
  return fields;
}

TEST(ClusterShapesTest, RepliesAreARealRedisClusters) {
  RedisCluster redis;
  const absl::Time deadline = absl::Now() + absl::Seconds(60);
  while (!redis.Settled() && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(200));
  }
  ASSERT_TRUE(redis.Settled())
      << "the Redis cluster did not settle in 60 s: "
      << RawClient(redis.port(0)).Call({"CLUSTER", "NODES"})
      << RawClient(redis.port(0)).Call({"CLUSTER", "SHARDS"});
  RawClient first(redis.port(0));
  const std::string nodes = BulkText(first.Call({"CLUSTER", "NODES"}));
  const std::string my_id = BulkText(first.Call({"CLUSTER", "MYID"}));

  v1::TrackdbConfig config;
  config.mutable_server()->set_cluster_enabled(true);
  TrackdbResp trackdb(config);
  RawClient c(trackdb.port());
  ASSERT_EQ(c.Call({"CLUSTERX", "SETNODEID", my_id}), "+OK\r\n");
  ASSERT_EQ(c.Call({"CLUSTERX", "SETNODES", SetNodesText(nodes), "1"}),
            "+OK\r\n")
      << SetNodesText(nodes);

  EXPECT_EQ(c.Call({"CLUSTER", "SLOTS"}), first.Call({"CLUSTER", "SLOTS"}));
  EXPECT_EQ(c.Call({"CLUSTER", "MYID"}), first.Call({"CLUSTER", "MYID"}));
  EXPECT_EQ(NodesShape(BulkText(c.Call({"CLUSTER", "NODES"}))),
            NodesShape(nodes));
  EXPECT_EQ(ShardsShape(c.Call({"CLUSTER", "SHARDS"})),
            ShardsShape(first.Call({"CLUSTER", "SHARDS"})));
  EXPECT_EQ(InfoShape(c.Call({"CLUSTER", "INFO"})),
            InfoShape(first.Call({"CLUSTER", "INFO"})));
  // The same key gets the same redirection from both.
  const std::string key = "{shape}key";
  EXPECT_EQ(c.Call({"GET", "foo"}), first.Call({"GET", "foo"}));
  EXPECT_EQ(c.Call({"SET", key, "v"}), first.Call({"SET", key, "v"}));
}

}  // namespace
}  // namespace trackdb::resp
