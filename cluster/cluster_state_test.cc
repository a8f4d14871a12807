#include "cluster/cluster_state.h"

#include <cstdlib>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trackdb::cluster {
namespace {

std::string Id(char c) { return std::string(kNodeIdLength, c); }

std::string StatePath() {
  const char* dir = std::getenv("TEST_TMPDIR");
  static int n = 0;
  return absl::StrCat(dir != nullptr ? dir : "/tmp", "/cluster_nodes_", ++n,
                      ".conf");
}

std::string TwoShards() {
  return absl::StrCat(Id('a'), " 127.0.0.1 7001 master - 0-8191\n",  //
                      Id('b'), " 127.0.0.1 7002 master - 8192-16383\n", Id('c'),
                      " 127.0.0.1 7003 slave ", Id('a'), "\n");
}

TEST(ClusterStateTest, VersionsAsKvrocks) {
  auto state = ClusterState::Open(StatePath(), "127.0.0.1", 7001);
  ASSERT_TRUE(state.ok()) << state.status();
  EXPECT_EQ((*state)->view()->version, -1);
  EXPECT_FALSE((*state)->SetNodes(TwoShards(), -1, false).ok());
  ASSERT_TRUE((*state)->SetNodes(TwoShards(), 5, false).ok());
  EXPECT_EQ((*state)->view()->version, 5);
  // Found by its address: no SETNODEID needed.
  EXPECT_EQ((*state)->view()->my_id, Id('a'));
  EXPECT_EQ((*state)->view()->myself, 0);
  absl::Status older = (*state)->SetNodes(TwoShards(), 4, false);
  EXPECT_EQ(older.message(), "Invalid cluster version");
  // The same version changes nothing, even with another map.
  const std::string one_shard =
      absl::StrCat(Id('a'), " 127.0.0.1 7001 master - 0-16383\n");
  ASSERT_TRUE((*state)->SetNodes(one_shard, 5, false).ok());
  EXPECT_EQ((*state)->view()->topology->Owner(9000), 1);
  ASSERT_TRUE((*state)->SetNodes(one_shard, 3, true).ok());
  EXPECT_EQ((*state)->view()->version, 3);
  EXPECT_EQ((*state)->view()->topology->Owner(9000), 0);
  // A bad map changes nothing.
  EXPECT_FALSE((*state)->SetNodes("junk", 9, false).ok());
  EXPECT_EQ((*state)->view()->version, 3);
}

TEST(ClusterStateTest, SurvivesReopen) {
  const std::string path = StatePath();
  {
    auto state = ClusterState::Open(path, "0.0.0.0", 9999);
    ASSERT_TRUE(state.ok());
    ASSERT_TRUE((*state)->SetNodeId(Id('b')).ok());
    ASSERT_TRUE((*state)->SetNodes(TwoShards(), 7, false).ok());
    EXPECT_EQ((*state)->view()->myself, 1);
    EXPECT_FALSE((*state)->SetNodeId("short").ok());
  }
  auto state = ClusterState::Open(path, "0.0.0.0", 9999);
  ASSERT_TRUE(state.ok()) << state.status();
  EXPECT_EQ((*state)->view()->version, 7);
  EXPECT_EQ((*state)->view()->my_id, Id('b'));
  EXPECT_EQ((*state)->view()->myself, 1);
  EXPECT_EQ((*state)->view()->topology->Owner(8192), 1);
  EXPECT_EQ((*state)->view()->topology->ReplicasOf(0).size(), 1u);
}

TEST(ClusterStateTest, Routes) {
  auto state = ClusterState::Open(StatePath(), "127.0.0.1", 7003);
  ASSERT_TRUE(state.ok());
  ClusterView none;
  const absl::string_view foo[] = {"foo"};  // slot 12182
  EXPECT_EQ(RouteKeys(none, foo, false).kind, Route::Kind::kDown);
  EXPECT_EQ(RouteError(RouteKeys(none, foo, false)),
            "CLUSTERDOWN Hash slot not served");
  EXPECT_EQ(RouteKeys(none, {}, true).kind, Route::Kind::kServe);

  ASSERT_TRUE((*state)->SetNodes(TwoShards(), 1, false).ok());
  const ClusterView& view = *(*state)->view();  // node c, a's slave
  EXPECT_EQ(RouteError(RouteKeys(view, foo, false)),
            "MOVED 12182 127.0.0.1:7002");
  const absl::string_view bar[] = {"bar"};  // slot 5061, a's
  EXPECT_EQ(RouteKeys(view, bar, false).kind, Route::Kind::kServe);
  EXPECT_EQ(RouteError(RouteKeys(view, bar, true)),
            "MOVED 5061 127.0.0.1:7001");
  const absl::string_view both[] = {"foo", "bar"};
  EXPECT_EQ(RouteError(RouteKeys(view, both, false)),
            "CROSSSLOT Keys in request don't hash to the same slot");
  const absl::string_view tagged[] = {"{bar}.1", "{bar}.2"};
  EXPECT_EQ(RouteKeys(view, tagged, false).kind, Route::Kind::kServe);
}

}  // namespace
}  // namespace trackdb::cluster
