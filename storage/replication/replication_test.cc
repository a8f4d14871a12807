// Replication between two stores in one process: a replica that syncs
// from a primary (full, then from its WAL) holds the same keys and answers
// every read as the primary does, its derived structures included.
#include "storage/replication/replication.h"

#include <atomic>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "fence/fence_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "index/region.h"
#include "storage/store_test_util.h"
#include "storage/track_store.h"

namespace trackdb::storage {
namespace {

using ::testing::HasSubstr;
using testing::OpenStore;
using testing::Point;

constexpr int64_t kNow = 1'700'000'000'000;

enum class Path { kUpToDate, kPartial, kFull };

// One sync as a replica's link runs it: a partial sync from the mark when
// the primary's WAL has it, else a full one.
Path Sync(TrackStore& primary, TrackStore& replica) {
  const std::string replid = *PrimaryReplid(primary);
  auto mark = ReadReplicationMark(replica);
  EXPECT_TRUE(mark.ok()) << mark.status();
  if (*mark && (*mark)->replid == replid) {
    bool applied = false;
    while (true) {
      auto mark_now = ReadReplicationMark(replica);
      auto batches = ReadUpdatesSince(primary, (**mark_now).next, 4096);
      if (absl::IsOutOfRange(batches.status())) break;
      EXPECT_TRUE(batches.ok()) << batches.status();
      if (batches->empty()) return applied ? Path::kPartial : Path::kUpToDate;
      absl::Status applied_now = ApplyShipped(replica, replid, *batches);
      EXPECT_TRUE(applied_now.ok()) << applied_now;
      if (!applied_now.ok()) break;
      applied = true;
    }
  }
  auto reader = SnapshotReader::Open(primary);
  auto sync = FullSync::Begin(replica);
  EXPECT_TRUE(sync.ok()) << sync.status();
  while (true) {
    auto records = (*reader)->Next(1000);
    EXPECT_TRUE(records.ok());
    if (records->empty()) break;
    EXPECT_TRUE((*sync)->Absorb(*records).ok());
  }
  EXPECT_TRUE((*sync)->Finish(replid, (*reader)->sequence()).ok());
  return Path::kFull;
}

// Every key of every column family but this node's replication state.
std::vector<std::string> AllKeys(TrackStore& store) {
  std::vector<std::string> out;
  for (ColumnFamily cf :
       {ColumnFamily::kDefault, ColumnFamily::kPoints, ColumnFamily::kLatest,
        ColumnFamily::kKv, ColumnFamily::kFences, ColumnFamily::kTypes,
        ColumnFamily::kChunks}) {
    for (const auto& [k, v] : testing::ReadRaw(store, cf)) {
      if (cf == ColumnFamily::kDefault &&
          absl::StartsWith(k, kReplicationKeyPrefix)) {
        continue;
      }
      out.push_back(absl::StrCat(static_cast<int>(cf), "|", k, "=", v));
    }
  }
  return out;
}

// What the reads that use derived structures answer.
std::vector<std::string> DerivedReads(TrackStore& store) {
  std::vector<std::string> out;
  auto circle = index::CircleRegion::Create({40.0, 116.0}, 50'000);
  for (const char* c : {"fleet", "copy", "other"}) {
    store
        .ScanRegion(c, *circle,
                    [&](const model::TrackPoint& p) {
                      out.push_back(absl::StrCat(c, " at ", p.entity, " ",
                                                 p.lat, " ", p.lon));
                      return true;
                    })
        .IgnoreError();
    out.push_back(absl::StrCat(c, " size ", *store.CollectionSize(c),
                               " expiry ", store.CollectionExpiry(c),
                               " retention ",
                               store.retention().Get(c).max_age_ms, " log end ",
                               store.fences().LogEnd(c)));
    auto fences = store.fences().List(c);
    for (const v1::Fence& f : *fences) out.push_back(f.name());
    // History, from raw fixes and chunks.
    for (const char* entity : {"car1", "car7", "walker"}) {
      TrackQuery q;
      q.collection = c;
      q.entity = entity;
      q.limit = 1000;
      auto page = store.GetTrack(q);
      if (!page.ok()) continue;
      for (const model::TrackPoint& p : page->points) {
        out.push_back(absl::StrCat(c, " ", entity, " ", p.loc_time_ms, " ",
                                   p.lat, " ", p.lon));
      }
    }
  }
  for (const char* name : {"s1", "s2", "s3"}) {
    auto v = store.GetString(name, kNow);
    out.push_back(absl::StrCat(name, "=", *v ? (*v)->value : "(none)"));
  }
  // Hash h's fields, read in a transaction, which caches what it reads: a
  // later replicated write must not leave them stale (I8).
  const std::string names[] = {"h"};
  store
      .UpdateTyped(names, kNow,
                   [&](TypedTxn& txn) {
                     auto meta = txn.Meta("h");
                     if (!meta.ok() || !*meta) return meta.status();
                     for (int round = 0; round < 6; ++round) {
                       const std::string field = absl::StrCat("f", round);
                       auto v = txn.Get("h", **meta, field);
                       if (!v.ok()) return v.status();
                       out.push_back(
                           absl::StrCat("h.", field, "=", *v ? **v : "(none)"));
                     }
                     return absl::OkStatus();
                   })
      .IgnoreError();
  return out;
}

void WriteEveryKind(TrackStore& store, int round) {
  const double d = round * 0.001;
  std::vector<model::TrackPoint> points;
  for (int e = 0; e < 20; ++e) {
    points.push_back(Point(absl::StrCat("car", e), kNow + round * 1000 + e,
                           40.0 + d + e * 0.0001, 116.0 + e * 0.0001));
  }
  ASSERT_TRUE(store.AddPoints("fleet", points).ok());
  ASSERT_TRUE(store.AddPoints("other", points).ok());
  ASSERT_TRUE(store.DeleteEntity("fleet", absl::StrCat("car", round)).ok());
  ASSERT_TRUE(store.PutString("s1", {absl::StrCat("v", round), 0}, kNow).ok());
  ASSERT_TRUE(store.PutString("s2", {"x", kNow + 3'600'000}, kNow).ok());
  ASSERT_TRUE(
      store.SetCollectionExpiry("other", kNow + 9'000'000 + round).ok());
  ASSERT_TRUE(
      store.retention().Set("fleet", {86'400'000 + round, false, 0}).ok());
  v1::Fence fence = fence::testing::CircleFence(40.0, 116.0, 500);
  fence.set_name(absl::StrCat("f", round % 2));
  ASSERT_TRUE(store.fences().Put(fence).ok());
  ASSERT_TRUE(store
                  .AddPoints("fleet", {Point("walker", kNow + round * 1000,
                                             round % 2 ? 40.0 : 40.1, 116.0)})
                  .ok());
  ASSERT_TRUE(store
                  .CopyName("fleet", "copy", kNow,
                            TrackStore::CopyNameOptions{false, true})
                  .ok());
  const std::string names[] = {"h"};
  ASSERT_TRUE(store
                  .UpdateTyped(names, kNow,
                               [&](TypedTxn& txn) {
                                 TypedMeta m = txn.Create(ValueType::kHash);
                                 txn.Put("h", m, absl::StrCat("f", round), "v");
                                 m.size = 1;
                                 txn.SetMeta("h", m);
                                 return absl::OkStatus();
                               })
                  .ok());
  if (round % 3 == 2) {
    ASSERT_TRUE(store.fences().Delete("fleet", "f0").ok());
    ASSERT_TRUE(store.DeleteNames({"s2"}, kNow).ok());
  }
  // History folded into chunks of a few fixes (a fix written after joins
  // or replaces one), and "other" trimmed to its newest fixes across them.
  FoldOptions fold;
  fold.min_fixes = 1;
  fold.chunk_fixes = 3;
  ASSERT_TRUE(store.chunker().FoldAll(fold, INT64_MAX).ok());
  ASSERT_TRUE(store.retention().Set("other", {0, false, 4}).ok());
  ASSERT_TRUE(store.retention().TrimHistories().ok());
}

// The fences and kinds of the events a walk in and out of the depot logs.
std::vector<std::string> FenceEventsAfterAWalk(TrackStore& store) {
  const uint64_t from = store.fences().LogEnd("fleet");
  for (int i = 0; i < 4; ++i) {
    EXPECT_TRUE(store
                    .AddPoints("fleet", {Point("runner", kNow + 100'000 + i,
                                               i % 2 ? 40.0 : 40.1, 116.0)})
                    .ok());
  }
  std::vector<std::string> out;
  auto page = store.fences().ReadEvents("fleet", from, 100);
  for (const FenceEventRecord& e : page->events) {
    out.push_back(absl::StrCat(e.fence, " ", e.kind, " ", e.offset));
  }
  EXPECT_FALSE(out.empty());
  return out;
}

TEST(ReplicationTest, AReplicaEqualsItsPrimaryAfterWritesOfEveryKind) {
  auto primary = OpenStore(testing::NewDataDir());
  auto replica = OpenStore(testing::NewDataDir());
  ASSERT_TRUE(SetReplica(*replica, true).ok());
  WriteEveryKind(*primary, 0);
  EXPECT_EQ(Sync(*primary, *replica), Path::kFull);
  EXPECT_EQ(AllKeys(*replica), AllKeys(*primary));
  EXPECT_EQ(DerivedReads(*replica), DerivedReads(*primary));
  EXPECT_FALSE(testing::ReadRaw(*replica, ColumnFamily::kChunks).empty());
  for (int round = 1; round < 6; ++round) {
    WriteEveryKind(*primary, round);
    EXPECT_EQ(Sync(*primary, *replica), Path::kPartial);
    EXPECT_EQ(AllKeys(*replica), AllKeys(*primary)) << round;
    EXPECT_EQ(DerivedReads(*replica), DerivedReads(*primary)) << round;
    EXPECT_TRUE(testing::StringCacheViolations(*replica).empty());
    EXPECT_TRUE(testing::TypedCacheViolations(*replica).empty());
    EXPECT_TRUE(testing::InvariantViolations(*replica, "fleet").empty());
  }
  EXPECT_EQ(Sync(*primary, *replica), Path::kUpToDate);
  auto mark = ReadReplicationMark(*replica);
  EXPECT_EQ((*mark)->next, LatestSequence(*primary) + 1);
  // Promoted, it evaluates the fences the primary has, no more, no fewer.
  ASSERT_TRUE(SetReplica(*replica, false).ok());
  EXPECT_EQ(FenceEventsAfterAWalk(*replica), FenceEventsAfterAWalk(*primary));
}

TEST(ReplicationTest, DigestsAreEqualExactlyWhenTheKeysAre) {
  auto primary = OpenStore(testing::NewDataDir());
  auto replica = OpenStore(testing::NewDataDir());
  EXPECT_EQ(*StoreDigest(*primary), *StoreDigest(*replica));
  WriteEveryKind(*primary, 0);
  EXPECT_NE(*StoreDigest(*primary), *StoreDigest(*replica));
  ASSERT_TRUE(SetReplica(*replica, true).ok());
  Sync(*primary, *replica);
  EXPECT_EQ(*StoreDigest(*primary), *StoreDigest(*replica));
  ASSERT_TRUE(primary->PutString("s1", {"changed", 0}, kNow).ok());
  EXPECT_NE(*StoreDigest(*primary), *StoreDigest(*replica));
}

TEST(ReplicationTest, DigestsLeaveOutTheGarbageCompactionDrops) {
  auto primary = OpenStore(testing::NewDataDir());
  auto replica = OpenStore(testing::NewDataDir());
  ASSERT_TRUE(SetReplica(*replica, true).ok());
  // Each round replaces hash h in O(1): the last round's members stay
  // behind, under their old version, until a compaction drops them.
  for (int round = 0; round < 3; ++round) {
    WriteEveryKind(*primary, round);
    Sync(*primary, *replica);
  }
  const std::string before = *StoreDigest(*primary);
  EXPECT_EQ(before, *StoreDigest(*replica));
  ASSERT_TRUE(testing::FlushAndCompact(*primary, ColumnFamily::kTypes).ok());
  EXPECT_EQ(*StoreDigest(*primary), before);
  EXPECT_EQ(*StoreDigest(*primary), *StoreDigest(*replica));
}

TEST(ReplicationTest, AReplicaRefusesWritesOfItsOwn) {
  auto replica = OpenStore(testing::NewDataDir());
  ASSERT_TRUE(SetReplica(*replica, true).ok());
  absl::Status s = replica->AddPoints("fleet", {Point("a", kNow, 40, 116)});
  EXPECT_TRUE(absl::IsFailedPrecondition(s)) << s;
  EXPECT_THAT(s.message(), HasSubstr("READONLY"));
  EXPECT_FALSE(replica->PutString("s", {"v", 0}, kNow).ok());
  const std::string names[] = {"h"};
  EXPECT_FALSE(replica
                   ->UpdateTyped(names, kNow,
                                 [](TypedTxn& txn) {
                                   TypedMeta m = txn.Create(ValueType::kSet);
                                   txn.Put("h", m, "m", "");
                                   txn.SetMeta("h", m);
                                   return absl::OkStatus();
                                 })
                   .ok());
  EXPECT_TRUE(AllKeys(*replica).size() <= 1);  // the schema version only
  ASSERT_TRUE(SetReplica(*replica, false).ok());
  EXPECT_TRUE(replica->AddPoints("fleet", {Point("a", kNow, 40, 116)}).ok());
}

TEST(ReplicationTest, AFullSyncMakesOlderDataExactlyThePrimarys) {
  auto primary = OpenStore(testing::NewDataDir());
  auto replica = OpenStore(testing::NewDataDir());
  WriteEveryKind(*replica, 4);  // its own, older data, to be replaced
  ASSERT_TRUE(replica->PutString("s3", {"only here", 0}, kNow).ok());
  ASSERT_TRUE(replica->AddPoints("gone", {Point("x", kNow, 40.0, 116.0)}).ok());
  ASSERT_TRUE(SetReplica(*replica, true).ok());
  WriteEveryKind(*primary, 0);
  WriteEveryKind(*primary, 1);
  EXPECT_EQ(Sync(*primary, *replica), Path::kFull);
  EXPECT_EQ(AllKeys(*replica), AllKeys(*primary));
  EXPECT_EQ(DerivedReads(*replica), DerivedReads(*primary));
  EXPECT_EQ(*replica->CollectionSize("gone"), 0);
  EXPECT_TRUE(testing::StringCacheViolations(*replica).empty());
  EXPECT_TRUE(testing::TypedCacheViolations(*replica).empty());
}

TEST(ReplicationTest, AMissingWalOrAnotherHistoryNeedsAFullSync) {
  auto primary = OpenStore(testing::NewDataDir());
  auto replica = OpenStore(testing::NewDataDir());
  ASSERT_TRUE(SetReplica(*replica, true).ok());
  WriteEveryKind(*primary, 0);
  EXPECT_EQ(Sync(*primary, *replica), Path::kFull);
  const uint64_t last = LatestSequence(*primary);
  EXPECT_TRUE(
      absl::IsOutOfRange(ReadUpdatesSince(*primary, last + 2, 1000).status()));
  EXPECT_TRUE(ReadUpdatesSince(*primary, last + 1, 1000)->empty());
  // A primary with a history of its own (a promoted replica's).
  ASSERT_TRUE(NewPrimaryReplid(*primary).ok());
  WriteEveryKind(*primary, 1);
  EXPECT_EQ(Sync(*primary, *replica), Path::kFull);
  EXPECT_EQ(AllKeys(*replica), AllKeys(*primary));
  // Batches that do not continue the mark are refused.
  auto mark = ReadReplicationMark(*replica);
  ShippedBatch stray{(*mark)->next + 1, 1, ""};
  EXPECT_TRUE(absl::IsFailedPrecondition(
      ApplyShipped(*replica, (*mark)->replid, {stray})));
}

TEST(ReplicationTest, AReplicaFollowsWhileManyWrite) {
  auto primary = OpenStore(testing::NewDataDir());
  auto replica = OpenStore(testing::NewDataDir());
  ASSERT_TRUE(SetReplica(*replica, true).ok());
  Sync(*primary, *replica);
  std::atomic<bool> stop{false};
  std::vector<std::thread> writers;
  for (int w = 0; w < 4; ++w) {
    writers.emplace_back([&, w] {
      for (int i = 0; !stop.load(); ++i) {
        const std::string name = absl::StrCat("w", w, ":", i % 50);
        EXPECT_TRUE(primary
                        ->AddPoints("fleet",
                                    {Point(name, kNow + i, 40 + i * 1e-5, 116)})
                        .ok());
        EXPECT_TRUE(primary->PutString(name, {absl::StrCat(i), 0}, kNow).ok());
      }
    });
  }
  // Following the WAL while write groups are in flight: the reader must
  // never step onto a batch not published yet.
  const std::string replid = *PrimaryReplid(*primary);
  const absl::Time end = absl::Now() + absl::Seconds(1);
  int pulls = 0;
  while (absl::Now() < end) {
    auto mark = ReadReplicationMark(*replica);
    auto batches = ReadUpdatesSince(*primary, (**mark).next, 1 << 16);
    ASSERT_TRUE(batches.ok()) << batches.status();
    ASSERT_TRUE(ApplyShipped(*replica, replid, *batches).ok());
    ++pulls;
  }
  stop.store(true);
  for (std::thread& t : writers) t.join();
  Sync(*primary, *replica);
  EXPECT_GT(pulls, 10);
  EXPECT_EQ(*StoreDigest(*replica), *StoreDigest(*primary));
  EXPECT_EQ(DerivedReads(*replica), DerivedReads(*primary));
}

// The keys of the names `keep` accepts.
std::vector<std::string> KeysOf(TrackStore& store, const NameFilter& keep) {
  std::vector<std::string> out;
  auto reader = SnapshotReader::Open(store, keep);
  while (true) {
    auto records = (*reader)->Next(1 << 20);
    if (records->empty()) return out;
    for (const SnapshotRecord& r : *records) {
      out.push_back(
          absl::StrCat(static_cast<int>(r.cf), "|", r.key, "=", r.value));
    }
  }
}

TEST(ReplicationTest, AMigrationMovesExactlyTheNamesItKeeps) {
  auto source = OpenStore(testing::NewDataDir());
  auto destination = OpenStore(testing::NewDataDir());
  // The "slot": the collection fleet, its copy, and the hash h.
  const NameFilter slot = [](absl::string_view name) {
    return name == "fleet" || name == "copy" || name == "h";
  };
  const NameFilter rest = [&](absl::string_view name) { return !slot(name); };
  WriteEveryKind(*source, 0);
  ASSERT_TRUE(destination->PutString("its own", {"v", 0}, kNow).ok());
  const std::vector<std::string> own = KeysOf(*destination, rest);
  // The snapshot, then what was written after it, as the migrator ships
  // them.
  auto reader = SnapshotReader::Open(*source, slot);
  const uint64_t next = (*reader)->sequence() + 1;
  WriteEveryKind(*source, 1);
  while (true) {
    auto records = (*reader)->Next(100);
    if (records->empty()) break;
    ASSERT_TRUE(ApplyMigrated(*destination, {EncodeRecords(*records)}).ok());
  }
  auto batches = ReadUpdatesSince(*source, next, 1 << 20, slot);
  ASSERT_TRUE(batches.ok());
  std::vector<std::string> data;
  uint64_t kept = 0;
  for (const ShippedBatch& b : *batches) {
    data.push_back(b.data);
    kept += b.kept;
  }
  EXPECT_GT(kept, 0u);
  ASSERT_TRUE(ApplyMigrated(*destination, data).ok());
  EXPECT_EQ(KeysOf(*destination, slot), KeysOf(*source, slot));
  EXPECT_EQ(KeysOf(*destination, rest), own);
  // Derived structures came along: a search of the moved collection.
  EXPECT_EQ(DerivedReads(*destination)[0], DerivedReads(*source)[0]);
  // The source then lets go of them, and only of them.
  const std::vector<std::string> others = KeysOf(*source, rest);
  auto deleted = DeleteNamesWhere(*source, slot);
  ASSERT_TRUE(deleted.ok());
  EXPECT_GT(*deleted, 0u);
  EXPECT_TRUE(KeysOf(*source, slot).empty());
  EXPECT_EQ(KeysOf(*source, rest), others);
  EXPECT_EQ(*source->CollectionSize("fleet"), 0);
}

TEST(ReplicationTest, ACorruptBatchIsRefusedAndWritesNothing) {
  auto primary = OpenStore(testing::NewDataDir());
  auto replica = OpenStore(testing::NewDataDir());
  ASSERT_TRUE(SetReplica(*replica, true).ok());
  WriteEveryKind(*primary, 0);
  Sync(*primary, *replica);
  const std::string before = *StoreDigest(*replica);
  auto mark = ReadReplicationMark(*replica);
  ASSERT_TRUE(primary->AddPoints("fleet", {Point("z", kNow, 40, 116)}).ok());
  auto batches = ReadUpdatesSince(*primary, (*mark)->next, 1 << 20);
  ASSERT_TRUE(batches.ok() && batches->size() == 1);
  const ShippedBatch batch = (*batches)[0];
  std::mt19937 random(7);
  int refused = 0;
  for (int i = 0; i < 300; ++i) {
    ShippedBatch bad = batch;
    if (i % 2 == 0) {
      bad.data.resize(random() % bad.data.size());
    } else {
      bad.data[random() % bad.data.size()] ^= 1 << (random() % 8);
    }
    // A flipped bit may still decode (a byte of a value): the first such
    // one applies and ends the test; every other is refused, unapplied.
    if (ApplyShipped(*replica, (*mark)->replid, {bad}).ok()) break;
    ++refused;
    EXPECT_EQ(*StoreDigest(*replica), before);
  }
  EXPECT_GT(refused, 0);
}

TEST(ReplicationTest,
     AnInterruptedFullSyncIsRedoneAndAPromotionForgetsTheMark) {
  auto primary = OpenStore(testing::NewDataDir());
  auto replica = OpenStore(testing::NewDataDir());
  ASSERT_TRUE(SetReplica(*replica, true).ok());
  WriteEveryKind(*primary, 0);
  EXPECT_EQ(Sync(*primary, *replica), Path::kFull);
  auto sync = FullSync::Begin(*replica);  // begun, never finished
  ASSERT_TRUE(sync.ok());
  EXPECT_FALSE(*ReadReplicationMark(*replica));
  EXPECT_EQ(Sync(*primary, *replica), Path::kFull);
  EXPECT_TRUE(*ReadReplicationMark(*replica));
  ASSERT_TRUE(SetReplica(*replica, false).ok());
  EXPECT_FALSE(*ReadReplicationMark(*replica));
  EXPECT_NE(*PrimaryReplid(*replica), *PrimaryReplid(*primary));
}

}  // namespace
}  // namespace trackdb::storage
