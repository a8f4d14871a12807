// ReplicaRegistry (what a primary knows of its replicas from their pulls)
// and SyncAcks (synchronous acknowledgement over it).
#include "service/replication/sync_acks.h"

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "service/replication/replica_registry.h"
#include "storage/replication/replication.h"
#include "storage/store_test_util.h"
#include "storage/track_store.h"
#include "trackdb/v1/config.pb.h"

namespace trackdb::replication {
namespace {

using ::testing::ElementsAre;
using ::testing::Field;
using ::testing::HasSubstr;

// A wait that must end by a wake-up, not by its deadline, is given one far
// beyond what the test may take.
constexpr absl::Duration kLongWait = absl::Seconds(30);
// What "woke at once" means on a loaded machine.
constexpr absl::Duration kPrompt = absl::Seconds(5);

// A delay before a helper thread acts, so that the main thread's wait is
// most likely under way; the assertions hold whichever comes first.
void LetTheWaitBegin() { absl::SleepFor(absl::Milliseconds(50)); }

TEST(ReplicaRegistryTest, PulledRecordsEachReplicaOnce) {
  ReplicaRegistry registry;
  EXPECT_TRUE(registry.Replicas().empty());
  const int64_t before = absl::ToUnixMillis(absl::Now());
  registry.Pulled(7, "10.0.0.1", 6380, 100);
  registry.Pulled(3, "10.0.0.2", 6381, 50);
  // A second pull from connection 7 updates it; after a full sync it may
  // have applied less than before.
  registry.Pulled(7, "10.0.0.1", 6390, 90);
  const int64_t after = absl::ToUnixMillis(absl::Now());
  const std::vector<ReplicaInfo> replicas = registry.Replicas();
  ASSERT_EQ(replicas.size(), 2u);
  EXPECT_EQ(replicas[0].client_id, 3);
  EXPECT_EQ(replicas[0].ip, "10.0.0.2");
  EXPECT_EQ(replicas[0].port, 6381);
  EXPECT_EQ(replicas[0].applied, 50u);
  EXPECT_EQ(replicas[1].client_id, 7);
  EXPECT_EQ(replicas[1].port, 6390);
  EXPECT_EQ(replicas[1].applied, 90u);
  for (const ReplicaInfo& r : replicas) {
    EXPECT_GE(r.last_pull_ms, before);
    EXPECT_LE(r.last_pull_ms, after);
  }
}

TEST(ReplicaRegistryTest, GoneForgetsTheConnection) {
  ReplicaRegistry registry;
  registry.Pulled(1, "a", 1, 10);
  registry.Pulled(2, "b", 2, 10);
  registry.Gone(1);
  registry.Gone(99);  // never pulled: nothing to forget
  EXPECT_THAT(registry.Replicas(),
              ElementsAre(Field(&ReplicaInfo::client_id, 2)));
  EXPECT_EQ(registry.Acked(10), 1);
  registry.Gone(2);
  EXPECT_TRUE(registry.Replicas().empty());
  EXPECT_EQ(registry.Acked(1), 0);
}

TEST(ReplicaRegistryTest, AckedCountsReplicasAtOrPastTheSequence) {
  ReplicaRegistry registry;
  EXPECT_EQ(registry.Acked(0), 0);
  registry.Pulled(1, "a", 1, 10);
  registry.Pulled(2, "b", 2, 20);
  registry.Pulled(3, "c", 3, 30);
  EXPECT_EQ(registry.Acked(0), 3);
  EXPECT_EQ(registry.Acked(10), 3);
  EXPECT_EQ(registry.Acked(11), 2);
  EXPECT_EQ(registry.Acked(20), 2);
  EXPECT_EQ(registry.Acked(30), 1);
  EXPECT_EQ(registry.Acked(31), 0);
}

TEST(ReplicaRegistryTest, GoodCountsReplicasWithinTheLag) {
  ReplicaRegistry registry;
  registry.Pulled(1, "a", 1, 0);
  const int64_t pulled = registry.Replicas()[0].last_pull_ms;
  EXPECT_EQ(registry.Good(pulled, 0), 1);
  EXPECT_EQ(registry.Good(pulled + 1000, 1000), 1);
  EXPECT_EQ(registry.Good(pulled + 1001, 1000), 0);
  registry.Pulled(2, "b", 2, 0);
  EXPECT_EQ(registry.Good(absl::ToUnixMillis(absl::Now()), 60'000), 2);
}

TEST(ReplicaRegistryTest, WaitForAcksReturnsAtOnceWhenAlreadyAcked) {
  ReplicaRegistry registry;
  registry.Pulled(1, "a", 1, 10);
  const absl::Time start = absl::Now();
  EXPECT_EQ(registry.WaitForAcks(1, 10, absl::Now() + kLongWait), 1);
  EXPECT_EQ(registry.WaitForAcks(0, 11, absl::Now() + kLongWait), 0);
  EXPECT_LT(absl::Now() - start, kPrompt);
}

TEST(ReplicaRegistryTest, WaitForAcksWakesWhenReplicasCatchUp) {
  ReplicaRegistry registry;
  registry.Pulled(1, "a", 1, 5);
  std::thread acker([&] {
    LetTheWaitBegin();
    registry.Pulled(1, "a", 1, 9);  // not yet
    registry.Pulled(2, "b", 2, 12);
    registry.Pulled(1, "a", 1, 10);
  });
  const absl::Time start = absl::Now();
  const int acked = registry.WaitForAcks(2, 10, absl::Now() + kLongWait);
  const absl::Duration took = absl::Now() - start;
  acker.join();
  EXPECT_EQ(acked, 2);
  EXPECT_LT(took, kPrompt);
}

TEST(ReplicaRegistryTest, WaitForAcksEndsAtItsDeadline) {
  ReplicaRegistry registry;
  registry.Pulled(1, "a", 1, 10);
  registry.Pulled(2, "b", 2, 9);
  const absl::Time start = absl::Now();
  const int acked =
      registry.WaitForAcks(2, 10, absl::Now() + absl::Milliseconds(200));
  const absl::Duration took = absl::Now() - start;
  EXPECT_EQ(acked, 1);
  EXPECT_GE(took, absl::Milliseconds(190));
  EXPECT_LT(took, kPrompt);
}

TEST(ReplicaRegistryTest, StopEndsWaitsNowAndLater) {
  ReplicaRegistry registry;
  registry.Pulled(1, "a", 1, 3);
  std::thread stopper([&] {
    LetTheWaitBegin();
    registry.Stop();
  });
  absl::Time start = absl::Now();
  EXPECT_EQ(registry.WaitForAcks(1, 10, absl::Now() + kLongWait), 0);
  EXPECT_LT(absl::Now() - start, kPrompt);
  stopper.join();
  // Once stopped, a new wait does not wait at all.
  start = absl::Now();
  EXPECT_EQ(registry.WaitForAcks(1, 3, absl::Now() + kLongWait), 1);
  EXPECT_EQ(registry.WaitForAcks(5, 1, absl::Now() + kLongWait), 1);
  EXPECT_LT(absl::Now() - start, kPrompt);
}

TEST(ReplicaRegistryTest, OnAckedCallsAtOnceWhenAlreadyAcked) {
  ReplicaRegistry registry;
  registry.Pulled(1, "a", 1, 10);
  int calls = 0;
  EXPECT_EQ(registry.OnAcked(1, 10, [&] { ++calls; }), 0u);
  EXPECT_EQ(calls, 1);
}

TEST(ReplicaRegistryTest, OnAckedCallsOnceFromThePullThatSatisfiesIt) {
  ReplicaRegistry registry;
  std::atomic<int> calls{0};
  std::thread::id called_on;
  // The callback may use the registry: it runs outside its lock.
  int acked_seen = -1;
  const uint64_t id = registry.OnAcked(2, 10, [&] {
    ++calls;
    called_on = std::this_thread::get_id();
    acked_seen = registry.Acked(10);
  });
  EXPECT_NE(id, 0u);
  registry.Pulled(1, "a", 1, 10);
  registry.Pulled(2, "b", 2, 9);
  EXPECT_EQ(calls.load(), 0);
  std::thread puller([&] { registry.Pulled(2, "b", 2, 10); });
  const std::thread::id puller_id = puller.get_id();
  puller.join();
  EXPECT_EQ(calls.load(), 1);
  EXPECT_EQ(called_on, puller_id);
  EXPECT_EQ(acked_seen, 2);
  // Called once only, and gone: later pulls and Cancel find nothing.
  registry.Pulled(3, "c", 3, 20);
  EXPECT_EQ(calls.load(), 1);
  EXPECT_FALSE(registry.Cancel(id));
}

TEST(ReplicaRegistryTest, ACancelledCallbackIsNeverCalled) {
  ReplicaRegistry registry;
  int cancelled_calls = 0, kept_calls = 0;
  const uint64_t cancelled = registry.OnAcked(1, 5, [&] { ++cancelled_calls; });
  const uint64_t kept = registry.OnAcked(1, 5, [&] { ++kept_calls; });
  ASSERT_NE(cancelled, 0u);
  ASSERT_NE(kept, 0u);
  EXPECT_NE(cancelled, kept);
  EXPECT_TRUE(registry.Cancel(cancelled));
  EXPECT_FALSE(registry.Cancel(cancelled));
  EXPECT_FALSE(registry.Cancel(12345));
  registry.Pulled(1, "a", 1, 5);
  EXPECT_EQ(cancelled_calls, 0);
  EXPECT_EQ(kept_calls, 1);
}

TEST(ReplicaRegistryTest, OnAckedWakesOnlyTheWaitersAPullSatisfies) {
  ReplicaRegistry registry;
  std::vector<int> called;
  registry.OnAcked(1, 5, [&] { called.push_back(5); });
  registry.OnAcked(2, 8, [&] { called.push_back(8); });
  registry.OnAcked(2, 5, [&] { called.push_back(-5); });
  registry.Pulled(1, "a", 1, 6);
  EXPECT_THAT(called, ElementsAre(5));
  registry.Pulled(2, "b", 2, 5);
  EXPECT_THAT(called, ElementsAre(5, -5));
  registry.Pulled(2, "b", 2, 8);
  EXPECT_THAT(called, ElementsAre(5, -5));  // replica 1 has only 6
  registry.Pulled(1, "a", 1, 8);
  EXPECT_THAT(called, ElementsAre(5, -5, 8));
}

v1::ReplicationConfig SyncConfig(uint32_t replicas, uint32_t timeout_ms) {
  v1::ReplicationConfig config;
  config.set_sync_replicas(replicas);
  config.set_sync_timeout_ms(timeout_ms);
  return config;
}

class SyncAcksTest : public ::testing::Test {
 protected:
  SyncAcksTest()
      : store_(storage::testing::OpenStore(storage::testing::NewDataDir())),
        registry_(std::make_shared<ReplicaRegistry>()) {}

  // Writes one string; the store's latest sequence afterwards.
  uint64_t Write(const std::string& name) {
    EXPECT_TRUE(store_->PutString(name, {"v", 0}, 0).ok());
    return storage::LatestSequence(*store_);
  }

  std::unique_ptr<storage::TrackStore> store_;
  std::shared_ptr<ReplicaRegistry> registry_;
};

TEST_F(SyncAcksTest, OffWhenNoReplicasAreAskedFor) {
  SyncAcks acks(store_.get(), registry_, SyncConfig(0, 100));
  EXPECT_FALSE(acks.enabled());
  EXPECT_EQ(acks.needed(), 0);
  EXPECT_EQ(&acks.replicas(), registry_.get());
  Write("a");
  EXPECT_TRUE(acks.CheckReplicas().ok());
  EXPECT_TRUE(acks.AwaitWrites().ok());
}

TEST_F(SyncAcksTest, TakesItsNumbersFromTheConfig) {
  SyncAcks acks(store_.get(), registry_, SyncConfig(2, 750));
  EXPECT_TRUE(acks.enabled());
  EXPECT_EQ(acks.needed(), 2);
  EXPECT_EQ(acks.timeout_ms(), 750);
  EXPECT_EQ(&acks.replicas(), registry_.get());
}

TEST_F(SyncAcksTest, CheckReplicasWantsEnoughFollowing) {
  SyncAcks acks(store_.get(), registry_, SyncConfig(2, 100));
  absl::Status none = acks.CheckReplicas();
  EXPECT_TRUE(absl::IsUnavailable(none)) << none;
  EXPECT_THAT(none.message(), HasSubstr("NOREPLICAS"));
  registry_->Pulled(1, "a", 1, 0);
  EXPECT_TRUE(absl::IsUnavailable(acks.CheckReplicas()));
  // Following is enough, whatever they applied.
  registry_->Pulled(2, "b", 2, 0);
  EXPECT_TRUE(acks.CheckReplicas().ok());
  registry_->Gone(1);
  EXPECT_TRUE(absl::IsUnavailable(acks.CheckReplicas()));
}

TEST_F(SyncAcksTest, AwaitWritesSucceedsOnceEnoughHaveTheLatestWrite) {
  SyncAcks acks(store_.get(), registry_, SyncConfig(2, 30'000));
  const uint64_t first = Write("a");
  registry_->Pulled(1, "a", 1, first);
  registry_->Pulled(2, "b", 2, first);
  EXPECT_TRUE(acks.AwaitWrites().ok());
  const uint64_t second = Write("b");
  ASSERT_GT(second, first);
  std::thread acker([&] {
    LetTheWaitBegin();
    registry_->Pulled(1, "a", 1, second);
    registry_->Pulled(2, "b", 2, second + 5);
  });
  const absl::Time start = absl::Now();
  const absl::Status s = acks.AwaitWrites();
  const absl::Duration took = absl::Now() - start;
  acker.join();
  EXPECT_TRUE(s.ok()) << s;
  EXPECT_LT(took, kPrompt);
}

TEST_F(SyncAcksTest, AwaitWritesFailsWhenTooFewHaveItByTheTimeout) {
  SyncAcks acks(store_.get(), registry_, SyncConfig(2, 200));
  const uint64_t sequence = Write("a");
  registry_->Pulled(1, "a", 1, sequence);
  registry_->Pulled(2, "b", 2, sequence - 1);
  const absl::Time start = absl::Now();
  const absl::Status s = acks.AwaitWrites();
  const absl::Duration took = absl::Now() - start;
  EXPECT_TRUE(absl::IsUnavailable(s)) << s;
  EXPECT_THAT(s.message(), HasSubstr("not acknowledged: 1 of the 2"));
  EXPECT_THAT(s.message(), HasSubstr("200 ms"));
  EXPECT_GE(took, absl::Milliseconds(190));
  EXPECT_LT(took, kPrompt);
}

TEST_F(SyncAcksTest, AwaitWritesEndsWhenTheRegistryStops) {
  SyncAcks acks(store_.get(), registry_, SyncConfig(1, 30'000));
  Write("a");
  std::thread stopper([&] {
    LetTheWaitBegin();
    registry_->Stop();
  });
  const absl::Time start = absl::Now();
  const absl::Status s = acks.AwaitWrites();
  const absl::Duration took = absl::Now() - start;
  stopper.join();
  EXPECT_TRUE(absl::IsUnavailable(s)) << s;
  EXPECT_LT(took, kPrompt);
}

}  // namespace
}  // namespace trackdb::replication
