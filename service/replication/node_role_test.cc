// NodeRole: REPLICAOF's switch between primary and replica, and one
// migration at a time.
#include "service/replication/node_role.h"

#include <memory>
#include <string>

#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "service/resp/testing/resp_test_client.h"
#include "storage/replication/replication.h"
#include "storage/store_test_util.h"
#include "trackdb/v1/config.pb.h"

namespace trackdb::replication {
namespace {

LinkOptions Unreachable() {
  LinkOptions options;
  options.host = "127.0.0.1";
  options.port = resp::testing::FreePort();
  return options;
}

TEST(NodeRoleTest, ReplicaOfMakesTheStoreAReplicaAndNoOneUndoesIt) {
  auto store = storage::testing::OpenStore(storage::testing::NewDataDir());
  NodeRole role(store.get(), v1::ReplicationConfig());
  EXPECT_FALSE(role.LinkState().has_value());
  EXPECT_FALSE(storage::IsReplica(*store));

  const LinkOptions primary = Unreachable();
  ASSERT_TRUE(role.ReplicaOf(primary).ok());
  EXPECT_TRUE(storage::IsReplica(*store));
  ASSERT_TRUE(role.LinkState().has_value());
  EXPECT_EQ(role.LinkState()->first.port, primary.port);

  // Re-pointed: one link, to the new primary.
  const LinkOptions other = Unreachable();
  ASSERT_TRUE(role.ReplicaOf(other).ok());
  EXPECT_EQ(role.LinkState()->first.port, other.port);

  ASSERT_TRUE(role.ReplicaOf(std::nullopt).ok());
  EXPECT_FALSE(role.LinkState().has_value());
  EXPECT_FALSE(storage::IsReplica(*store));
}

TEST(NodeRoleTest, StopEndsTheLinkAndLeavesTheStoreAReplica) {
  auto store = storage::testing::OpenStore(storage::testing::NewDataDir());
  NodeRole role(store.get(), v1::ReplicationConfig());
  ASSERT_TRUE(role.ReplicaOf(Unreachable()).ok());
  const absl::Time start = absl::Now();
  role.Stop();
  EXPECT_LT(absl::Now() - start, absl::Seconds(3));
  EXPECT_FALSE(role.LinkState().has_value());
  EXPECT_TRUE(storage::IsReplica(*store));  // shutdown keeps the role
}

TEST(NodeRoleTest, TheRegistryIsTheSyncAcksOne) {
  auto store = storage::testing::OpenStore(storage::testing::NewDataDir());
  v1::ReplicationConfig config;
  config.set_sync_replicas(1);
  NodeRole role(store.get(), config);
  EXPECT_TRUE(role.sync_acks().enabled());
  EXPECT_EQ(&role.replicas(), &role.sync_acks().replicas());
  role.replicas().Pulled(7, "127.0.0.1", 6380, 0);
  EXPECT_EQ(role.sync_acks().replicas().Replicas().size(), 1u);
}

}  // namespace
}  // namespace trackdb::replication
