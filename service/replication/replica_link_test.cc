// ReplicaLink end to end: a primary is a real RESP server over a store of
// its own, and a replica store follows it through the link over loopback.
#include "service/replication/replica_link.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "model/clock.h"
#include "service/replication/replica_registry.h"
#include "service/replication/sync_acks.h"
#include "service/resp/server/resp_server.h"
#include "service/resp/testing/resp_test_client.h"
#include "storage/replication/replication.h"
#include "storage/store_test_util.h"
#include "storage/track_store.h"
#include "trackdb/v1/config.pb.h"

namespace trackdb::replication {
namespace {

using resp::testing::Eventually;

using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr int kReplicaPort = 6399;  // what the replica tells its primary

// A primary: a RESP server on a free loopback port over a fresh store, with
// its replica registry in reach of the test.
class Primary {
 public:
  explicit Primary(const std::string& requirepass = "") {
    config_.mutable_server()->set_resp_bind_address("127.0.0.1");
    config_.mutable_server()->set_resp_port(0);
    config_.mutable_server()->set_resp_threads(2);
    // Unset, no multibulk request is accepted at all.
    config_.mutable_server()->set_resp_max_multibulk_len(1024 * 1024);
    config_.mutable_server()->set_requirepass(requirepass);
    config_.set_data_dir(storage::testing::NewDataDir());
    store_ = storage::testing::OpenStore(config_.data_dir());
    acks_ = std::make_shared<SyncAcks>(store_.get(), registry_,
                                       config_.replication());
    auto server =
        resp::RespServer::Start(config_, store_.get(), nullptr, nullptr, acks_);
    EXPECT_TRUE(server.ok()) << server.status();
    if (server.ok()) server_ = *std::move(server);
  }
  ~Primary() {
    if (server_) server_->Shutdown();
  }

  bool started() const { return server_ != nullptr; }
  int port() const { return server_->port(); }
  storage::TrackStore& store() { return *store_; }
  ReplicaRegistry& registry() { return *registry_; }

 private:
  v1::TrackdbConfig config_;
  std::unique_ptr<storage::TrackStore> store_;
  std::shared_ptr<ReplicaRegistry> registry_ =
      std::make_shared<ReplicaRegistry>();
  std::shared_ptr<SyncAcks> acks_;
  std::unique_ptr<resp::RespServer> server_;
};

LinkOptions LinkTo(int port, std::string password = "") {
  LinkOptions options;
  options.host = "127.0.0.1";
  options.port = port;
  options.password = std::move(password);
  options.listening_port = kReplicaPort;
  return options;
}

std::unique_ptr<storage::TrackStore> NewReplicaStore() {
  auto store = storage::testing::OpenStore(storage::testing::NewDataDir());
  EXPECT_TRUE(storage::SetReplica(*store, true).ok());
  return store;
}

std::optional<std::string> StringOf(storage::TrackStore& store,
                                    const std::string& name) {
  absl::StatusOr<std::optional<storage::StringValue>> v =
      store.GetString(name, NowMs());
  if (!v.ok() || !*v) return std::nullopt;
  return (*v)->value;
}

bool HasString(storage::TrackStore& store, const std::string& name,
               const std::string& value) {
  return StringOf(store, name) == value;
}

// Whether `entity` of `collection` has its latest point at `t`.
bool HasPointAt(storage::TrackStore& store, const std::string& collection,
                const std::string& entity, int64_t t) {
  auto latest = store.GetLatest(collection, entity);
  return latest.ok() && latest->has_value() && (*latest)->loc_time_ms == t;
}

void Put(storage::TrackStore& store, const std::string& name,
         const std::string& value) {
  ASSERT_TRUE(store.PutString(name, {value, 0}, NowMs()).ok());
}

void AddPoint(storage::TrackStore& store, const std::string& entity,
              int64_t t) {
  ASSERT_TRUE(
      store
          .AddPoints("fleet", {storage::testing::Point(entity, t, 40.0, 116.0)})
          .ok());
}

// Whether the two stores hold the same keys and values.
bool SameDigest(storage::TrackStore& a, storage::TrackStore& b) {
  absl::StatusOr<std::string> da = storage::StoreDigest(a);
  absl::StatusOr<std::string> db = storage::StoreDigest(b);
  return da.ok() && db.ok() && *da == *db;
}

TEST(ReplicaLinkTest, FullSyncsThenFollowsThePrimarysWrites) {
  Primary primary;
  ASSERT_TRUE(primary.started());
  const int64_t t0 = NowMs();
  Put(primary.store(), "before", "1");
  AddPoint(primary.store(), "bus", t0);
  auto replica = NewReplicaStore();
  ReplicaLink link(replica.get(), LinkTo(primary.port()));
  EXPECT_EQ(link.options().port, primary.port());
  // What the primary held before the link began comes by a full sync.
  ASSERT_TRUE(Eventually([&] { return HasString(*replica, "before", "1"); }));
  EXPECT_TRUE(HasPointAt(*replica, "fleet", "bus", t0));
  EXPECT_EQ(link.status().full_syncs, 1u);
  // What it writes afterwards comes through pulls.
  Put(primary.store(), "after", "2");
  Put(primary.store(), "before", "changed");
  AddPoint(primary.store(), "bus", t0 + 1000);
  ASSERT_TRUE(Eventually([&] {
    return HasString(*replica, "before", "changed") &&
           HasPointAt(*replica, "fleet", "bus", t0 + 1000);
  }));
  EXPECT_TRUE(HasString(*replica, "after", "2"));
  ASSERT_TRUE(
      Eventually([&] { return SameDigest(primary.store(), *replica); }));
  const LinkStatus status = link.status();
  EXPECT_TRUE(status.up);
  EXPECT_FALSE(status.sync_in_progress);
  EXPECT_EQ(status.full_syncs, 1u);
  EXPECT_GE(status.partial_pulls, 1u);
  EXPECT_EQ(status.applied, storage::LatestSequence(primary.store()));
  EXPECT_GT(status.last_io_ms, 0);
  EXPECT_TRUE(status.last_error.empty()) << status.last_error;
}

TEST(ReplicaLinkTest, ThePrimaryCountsTheReplicasAcks) {
  Primary primary;
  ASSERT_TRUE(primary.started());
  auto replica = NewReplicaStore();
  ReplicaLink link(replica.get(), LinkTo(primary.port()));
  Put(primary.store(), "k", "v");
  const uint64_t sequence = storage::LatestSequence(primary.store());
  // A pull says what the replica applied: the registry (WAIT) sees the
  // write acknowledged once the replica has it.
  ASSERT_TRUE(
      Eventually([&] { return primary.registry().Acked(sequence) == 1; }));
  EXPECT_TRUE(HasString(*replica, "k", "v"));
  const auto replicas = primary.registry().Replicas();
  ASSERT_EQ(replicas.size(), 1u);
  EXPECT_EQ(replicas[0].ip, "127.0.0.1");
  EXPECT_EQ(replicas[0].port, kReplicaPort);
}

TEST(ReplicaLinkTest, TheReplicaRefusesWritesOfItsOwn) {
  Primary primary;
  ASSERT_TRUE(primary.started());
  Put(primary.store(), "k", "primary's");
  auto replica = NewReplicaStore();
  ReplicaLink link(replica.get(), LinkTo(primary.port()));
  ASSERT_TRUE(
      Eventually([&] { return HasString(*replica, "k", "primary's"); }));
  absl::Status put = replica->PutString("k", {"mine", 0}, NowMs()).status();
  EXPECT_TRUE(absl::IsFailedPrecondition(put)) << put;
  EXPECT_THAT(std::string(put.message()), StartsWith("READONLY"));
  absl::Status add = replica->AddPoints(
      "fleet", {storage::testing::Point("car", NowMs(), 40.0, 116.0)});
  EXPECT_TRUE(absl::IsFailedPrecondition(add)) << add;
  EXPECT_THAT(add.message(), HasSubstr("READONLY"));
  EXPECT_TRUE(HasString(*replica, "k", "primary's"));
  EXPECT_EQ(*replica->CollectionSize("fleet"), 0);
}

TEST(ReplicaLinkTest, StoppedItAppliesNothingAndAResumedLinkGoesOnFromTheMark) {
  Primary primary;
  ASSERT_TRUE(primary.started());
  Put(primary.store(), "a", "1");
  auto replica = NewReplicaStore();
  auto link =
      std::make_unique<ReplicaLink>(replica.get(), LinkTo(primary.port()));
  ASSERT_TRUE(Eventually([&] { return HasString(*replica, "a", "1"); }));
  const absl::Time start = absl::Now();
  link.reset();
  // A pull in flight is abandoned, not waited out.
  EXPECT_LT(absl::Now() - start, absl::Seconds(3));
  // Its connection is closed: the primary forgets the replica.
  ASSERT_TRUE(
      Eventually([&] { return primary.registry().Replicas().empty(); }));
  // The link's thread is gone, so the store can change no more.
  const auto mark = storage::ReadReplicationMark(*replica);
  ASSERT_TRUE(mark.ok() && mark->has_value());
  Put(primary.store(), "b", "2");
  EXPECT_FALSE(StringOf(*replica, "b").has_value());
  EXPECT_TRUE(storage::IsReplica(*replica));  // it stays a replica
  EXPECT_EQ(storage::ReadReplicationMark(*replica).value()->next,
            (*mark)->next);
  // A new link resumes from the mark by pulls alone.
  ReplicaLink resumed(replica.get(), LinkTo(primary.port()));
  ASSERT_TRUE(Eventually([&] { return HasString(*replica, "b", "2"); }));
  EXPECT_EQ(resumed.status().full_syncs, 0u);
  EXPECT_GE(resumed.status().partial_pulls, 1u);
  ASSERT_TRUE(
      Eventually([&] { return SameDigest(primary.store(), *replica); }));
}

TEST(ReplicaLinkTest, AnUnreachablePrimaryIsReportedAndRetried) {
  const int port = resp::testing::FreePort();
  auto replica = NewReplicaStore();
  auto link = std::make_unique<ReplicaLink>(replica.get(), LinkTo(port));
  ASSERT_TRUE(Eventually([&] { return !link->status().last_error.empty(); }));
  EXPECT_FALSE(link->status().up);
  EXPECT_THAT(link->status().last_error, HasSubstr("connecting to"));
  // The retry's wait does not hold the stop up.
  const absl::Time start = absl::Now();
  link.reset();
  EXPECT_LT(absl::Now() - start, absl::Seconds(3));
  EXPECT_FALSE(storage::ReadReplicationMark(*replica).value().has_value());
}

TEST(ReplicaLinkTest, AuthenticatesWithThePrimarysPassword) {
  Primary primary("s3cret");
  ASSERT_TRUE(primary.started());
  Put(primary.store(), "k", "v");
  auto replica = NewReplicaStore();
  {
    ReplicaLink wrong(replica.get(), LinkTo(primary.port(), "wrong"));
    ASSERT_TRUE(Eventually([&] { return !wrong.status().last_error.empty(); }));
    EXPECT_THAT(wrong.status().last_error, HasSubstr("AUTH"));
    EXPECT_FALSE(wrong.status().up);
  }
  EXPECT_FALSE(StringOf(*replica, "k").has_value());
  ReplicaLink right(replica.get(), LinkTo(primary.port(), "s3cret"));
  ASSERT_TRUE(Eventually([&] { return HasString(*replica, "k", "v"); }));
  EXPECT_TRUE(right.status().up);
}

// The same link, started and stopped by REPLICAOF on a replica's RESP door.
TEST(ReplicaLinkTest, ReplicaOfOverTheRespDoor) {
  resp::testing::TrackdbResp primary;
  resp::testing::TrackdbResp node;
  resp::testing::RawClient client(node.port());
  Put(primary.store(), "k", "v");
  EXPECT_EQ(
      client.Call({"REPLICAOF", "127.0.0.1", std::to_string(primary.port())}),
      "+OK\r\n");
  ASSERT_TRUE(Eventually([&] { return HasString(node.store(), "k", "v"); }));
  EXPECT_EQ(client.Call({"GET", "k"}), "$1\r\nv\r\n");
  EXPECT_THAT(client.Call({"SET", "k", "mine"}), StartsWith("-READONLY"));
  EXPECT_THAT(client.Call({"ROLE"}), HasSubstr("slave"));
  // Promoted, it stops following and takes writes of its own.
  EXPECT_EQ(client.Call({"REPLICAOF", "NO", "ONE"}), "+OK\r\n");
  Put(primary.store(), "later", "x");
  EXPECT_EQ(client.Call({"SET", "k", "mine"}), "+OK\r\n");
  EXPECT_EQ(client.Call({"GET", "later"}), "$-1\r\n");
  EXPECT_THAT(client.Call({"ROLE"}), HasSubstr("master"));
}

}  // namespace
}  // namespace trackdb::replication
