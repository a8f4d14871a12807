// SlotMigrator between two in-process nodes: the source is a store with
// its cluster state, the destination a real RESP server (REPL.IMPORT) over
// a store of its own.
#include "service/replication/slot_migrator.h"

#include <atomic>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "cluster/cluster_state.h"
#include "cluster/key_slot.h"
#include "cluster/topology.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "model/clock.h"
#include "service/replication/replica_link.h"
#include "service/resp/testing/resp_test_client.h"
#include "storage/replication/replication.h"
#include "storage/store_test_util.h"
#include "storage/track_store.h"

namespace trackdb::replication {
namespace {

using resp::testing::Eventually;

// The slots migrated.
constexpr int kFirst = 1000;
constexpr int kLast = 1999;

bool Migrated(int slot) { return slot >= kFirst && slot <= kLast; }

// The `n`th hash tag "{tN}" whose slot is (`inside`) or is not in the
// migrated range: names that start with it share its slot.
std::string Tag(bool inside, int n) {
  for (int i = 0;; ++i) {
    const std::string tag = absl::StrCat("{t", i, "}");
    if (Migrated(cluster::KeySlot(tag)) == inside && n-- == 0) return tag;
  }
}

std::string Id(char c) { return std::string(cluster::kNodeIdLength, c); }

std::string StatePath() {
  const char* dir = std::getenv("TEST_TMPDIR");
  static int n = 0;
  return absl::StrCat(dir != nullptr ? dir : "/tmp", "/migrator_nodes_", ++n,
                      ".conf");
}

bool HasString(storage::TrackStore& store, const std::string& name,
               const std::string& value) {
  auto v = store.GetString(name, NowMs());
  return v.ok() && v->has_value() && (*v)->value == value;
}

bool HasNoString(storage::TrackStore& store, const std::string& name) {
  auto v = store.GetString(name, NowMs());
  return v.ok() && !v->has_value();
}

int64_t Entities(storage::TrackStore& store, const std::string& collection) {
  return store.CollectionSize(collection).value_or(-1);
}

class SlotMigratorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto cluster = cluster::ClusterState::Open(StatePath(), "127.0.0.1", 1);
    ASSERT_TRUE(cluster.ok()) << cluster.status();
    cluster_ = *std::move(cluster);
    ASSERT_TRUE(cluster_->SetNodeId(Id('a')).ok());
    // This node serves every slot; the destination none yet.
    ASSERT_TRUE(cluster_->SetNodes(TopologyText("0-16383", ""), 1, false).ok());
    Seed();
  }

  // A topology of this node ("a") owning `mine` and the destination ("b")
  // owning `theirs`.
  std::string TopologyText(const std::string& mine, const std::string& theirs) {
    return absl::StrCat(Id('a'), " 127.0.0.1 1 master - ", mine, "\n", Id('b'),
                        " 127.0.0.1 ", destination_.port(), " master -",
                        theirs.empty() ? "" : " ", theirs, "\n");
  }

  // The topology after the handover.
  void GiveTheSlotsAway() {
    ASSERT_TRUE(cluster_
                    ->SetNodes(TopologyText(absl::StrCat("0-", kFirst - 1, " ",
                                                         kLast + 1, "-16383"),
                                            absl::StrCat(kFirst, "-", kLast)),
                               2, false)
                    .ok());
  }

  // Names in two of the slots (strings and a GEO key) and outside them.
  void Seed() {
    for (const std::string& name : {in_ + "s", in2_ + "s", out_ + "s"}) {
      ASSERT_TRUE(source_->PutString(name, {"v:" + name, 0}, NowMs()).ok());
    }
    for (const std::string& tag : {in_, out_}) {
      ASSERT_TRUE(source_
                      ->AddPoints(tag + "fleet", {storage::testing::Point(
                                                     "bus", NowMs(), 40, 116)})
                      .ok());
    }
  }

  std::unique_ptr<SlotMigrator> Migrate(int port) {
    LinkOptions destination;
    destination.host = "127.0.0.1";
    destination.port = port;
    return std::make_unique<SlotMigrator>(source_.get(), cluster_.get(), kFirst,
                                          kLast, destination);
  }

  bool StateIs(const std::string& state, bool blocks_writes) {
    const cluster::ClusterState::Migration m = cluster_->migration();
    return m.state == state && m.blocks_writes == blocks_writes;
  }

  // The slot names' strings and GEO key are on `store`, whole.
  bool HoldsTheSlots(storage::TrackStore& store) {
    return HasString(store, in_ + "s", "v:" + in_ + "s") &&
           HasString(store, in2_ + "s", "v:" + in2_ + "s") &&
           Entities(store, in_ + "fleet") == 1;
  }

  bool HoldsNoneOfTheSlots(storage::TrackStore& store) {
    return HasNoString(store, in_ + "s") && HasNoString(store, in2_ + "s") &&
           Entities(store, in_ + "fleet") == 0;
  }

  bool HoldsTheOthers(storage::TrackStore& store) {
    return HasString(store, out_ + "s", "v:" + out_ + "s") &&
           Entities(store, out_ + "fleet") == 1;
  }

  bool HoldsNoneOfTheOthers(storage::TrackStore& store) {
    return HasNoString(store, out_ + "s") &&
           Entities(store, out_ + "fleet") == 0;
  }

  const std::string in_ = Tag(true, 0);
  const std::string in2_ = Tag(true, 1);
  const std::string out_ = Tag(false, 0);
  resp::testing::TrackdbResp destination_;
  std::unique_ptr<storage::TrackStore> source_ =
      storage::testing::OpenStore(storage::testing::NewDataDir());
  std::unique_ptr<cluster::ClusterState> cluster_;
};

TEST_F(SlotMigratorTest, TheTagsAreWhereTheTestNeedsThem) {
  EXPECT_TRUE(Migrated(cluster::KeySlot(in_ + "s")));
  EXPECT_TRUE(Migrated(cluster::KeySlot(in2_ + "fleet")));
  EXPECT_NE(cluster::KeySlot(in_), cluster::KeySlot(in2_));
  EXPECT_FALSE(Migrated(cluster::KeySlot(out_ + "s")));
}

TEST_F(SlotMigratorTest, MovesTheSlotsAndDeletesThemOnceTheTopologyDoes) {
  auto migrator = Migrate(destination_.port());
  ASSERT_TRUE(Eventually([&] { return StateIs("success", true); }))
      << cluster_->migration().state;
  EXPECT_EQ(cluster_->migration().first, kFirst);
  EXPECT_EQ(cluster_->migration().last, kLast);
  EXPECT_TRUE(HoldsTheSlots(destination_.store()));
  EXPECT_TRUE(HoldsNoneOfTheOthers(destination_.store()));
  // Until the topology gives the slots away, they stay here, their
  // writes held off; the other slots' are not.
  EXPECT_TRUE(migrator->running());
  EXPECT_TRUE(HoldsTheSlots(*source_));
  EXPECT_TRUE(cluster_->WritesHeldOff(cluster::KeySlot(in_)));
  EXPECT_FALSE(cluster_->WritesHeldOff(cluster::KeySlot(out_)));

  GiveTheSlotsAway();
  ASSERT_TRUE(Eventually([&] { return !migrator->running(); }));
  EXPECT_TRUE(StateIs("success", false));
  EXPECT_TRUE(HoldsNoneOfTheSlots(*source_));
  EXPECT_TRUE(HoldsTheOthers(*source_));
  EXPECT_TRUE(HoldsTheSlots(destination_.store()));
  EXPECT_FALSE(cluster_->WritesHeldOff(cluster::KeySlot(in_)));
}

// Writes as a cluster-mode door takes them: under the migration gate, and
// refused (TRYAGAIN) once the migration holds the slot's writes off.
bool GatedPut(cluster::ClusterState& cluster, storage::TrackStore& store,
              const std::string& name) {
  absl::ReaderMutexLock gate(&cluster.migration_gate());
  if (cluster.WritesHeldOff(cluster::KeySlot(name))) return false;
  EXPECT_TRUE(store.PutString(name, {"w", 0}, NowMs()).ok());
  return true;
}

TEST_F(SlotMigratorTest, NoWriteTakenDuringTheMigrationIsLost) {
  // Unpaced, the writer outruns the migration's first catch-up, so many
  // of its writes come after the snapshot and travel through the WAL; the
  // cap ends the follow well before kMaxFollow would. The migration starts
  // once the writer has taken its first write: a thread slow to start (as
  // under a sanitizer) would otherwise find the slots already held off.
  constexpr int kWrites = 5000;
  std::atomic<int> taken{0};
  std::thread writer([&] {
    for (; taken < kWrites; ++taken) {
      if (!GatedPut(*cluster_, *source_, absl::StrCat(in_, "w", taken.load())))
        break;
    }
  });
  if (!Eventually([&] { return taken > 0; })) {
    writer.join();
    FAIL() << "the writer took no write before the migration";
  }
  auto migrator = Migrate(destination_.port());
  ASSERT_TRUE(Eventually([&] { return StateIs("success", true); }));
  writer.join();
  const int writes = taken.load();
  RecordProperty("writes_taken", writes);
  for (int i = 0; i < writes; ++i) {
    ASSERT_TRUE(HasString(destination_.store(), absl::StrCat(in_, "w", i), "w"))
        << "write " << i << " of " << writes << " taken";
  }
  // Held off: no write to the slots is taken from here on.
  EXPECT_FALSE(GatedPut(*cluster_, *source_, in_ + "late"));
  EXPECT_TRUE(GatedPut(*cluster_, *source_, out_ + "late"));
  EXPECT_TRUE(HoldsTheSlots(destination_.store()));
}

TEST_F(SlotMigratorTest, AnUnreachableDestinationFailsAndKeepsEverything) {
  auto migrator = Migrate(resp::testing::FreePort());
  ASSERT_TRUE(Eventually([&] { return !migrator->running(); }));
  EXPECT_TRUE(StateIs("fail", false));
  EXPECT_TRUE(HoldsTheSlots(*source_));
  EXPECT_TRUE(HoldsTheOthers(*source_));
  EXPECT_FALSE(cluster_->WritesHeldOff(cluster::KeySlot(in_)));
}

TEST_F(SlotMigratorTest, ARefusingDestinationFailsAndKeepsEverything) {
  // A replica refuses REPL.IMPORT.
  ASSERT_TRUE(storage::SetReplica(destination_.store(), true).ok());
  auto migrator = Migrate(destination_.port());
  ASSERT_TRUE(Eventually([&] { return !migrator->running(); }));
  EXPECT_TRUE(StateIs("fail", false));
  EXPECT_TRUE(HoldsNoneOfTheSlots(destination_.store()));
  EXPECT_TRUE(HoldsTheSlots(*source_));
  // Even once the topology moves the slots, a failed migration deletes
  // nothing here.
  GiveTheSlotsAway();
  EXPECT_TRUE(HoldsTheSlots(*source_));
}

TEST_F(SlotMigratorTest, StoppedBeforeTheHandoverItKeepsTheNames) {
  auto migrator = Migrate(destination_.port());
  ASSERT_TRUE(Eventually([&] { return StateIs("success", true); }));
  const absl::Time start = absl::Now();
  migrator.reset();
  EXPECT_LT(absl::Now() - start, absl::Seconds(3));
  // Writes are allowed again, and with the topology unchanged the names
  // stay here.
  EXPECT_TRUE(StateIs("success", false));
  EXPECT_FALSE(cluster_->WritesHeldOff(cluster::KeySlot(in_)));
  EXPECT_TRUE(HoldsTheSlots(*source_));
  EXPECT_TRUE(HoldsTheOthers(*source_));
}

}  // namespace
}  // namespace trackdb::replication
