#include <map>
#include <thread>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "rocksdb/write_batch.h"
#include "storage/format/counter_merge.h"
#include "storage/engine/engine.h"
#include "storage/format/keys.h"
#include "storage/store_test_util.h"
#include "storage/track_store.h"

namespace trackdb::storage {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::InvariantViolations;
using ::testing::IsEmpty;
using testing::NewDataDir;
using ::testing::Not;
using testing::OpenStore;
using ::testing::Pair;
using testing::Point;

std::map<std::string, int64_t> Collections(TrackStore& store) {
  std::map<std::string, int64_t> out;
  EXPECT_TRUE(store
                  .ScanCollections([&](absl::string_view c, int64_t n) {
                    out[std::string(c)] = n;
                    return true;
                  })
                  .ok());
  return out;
}

TEST(CollectionsTest, RegistryCountsEntitiesThroughAddsAndDeletes) {
  auto store = OpenStore(NewDataDir());
  ASSERT_TRUE(
      store
          ->AddPoints("fleet", {Point("a", 1, 1, 1), Point("b", 1, 2, 2),
                                Point("a", 2, 1.5, 1)})
          .ok());
  ASSERT_TRUE(store->AddPoints("other", {Point("x", 1, 1, 1)}).ok());
  // A newer and an older point of known entities add nobody.
  ASSERT_TRUE(
      store->AddPoints("fleet", {Point("a", 3, 1, 1), Point("b", 0, 2, 2)})
          .ok());
  EXPECT_EQ(*store->CollectionSize("fleet"), 2);
  EXPECT_EQ(*store->CollectionSize("nothing"), 0);
  EXPECT_THAT(Collections(*store),
              ElementsAre(Pair("fleet", 2), Pair("other", 1)));

  ASSERT_TRUE(*store->DeleteEntity("fleet", "a"));
  ASSERT_FALSE(*store->DeleteEntity("fleet", "a"));  // not twice
  EXPECT_EQ(*store->CollectionSize("fleet"), 1);
  ASSERT_TRUE(*store->DeleteEntity("other", "x"));
  // An emptied collection is no longer listed.
  EXPECT_THAT(Collections(*store), ElementsAre(Pair("fleet", 1)));
  EXPECT_THAT(InvariantViolations(*store, "fleet"), IsEmpty());
  EXPECT_THAT(InvariantViolations(*store, "other"), IsEmpty());
}

TEST(CollectionsTest, ConcurrentWritersNeverLoseACount) {
  auto store = OpenStore(NewDataDir());
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i) {
        // Overlapping entity sets: the same entity may be new to two calls.
        const std::string e = absl::StrCat("e", (i * 7 + t) % 300);
        ASSERT_TRUE(store->AddPoints("c", {Point(e, i, 1, 1)}).ok());
        if (i % 5 == 0) ASSERT_TRUE(store->DeleteEntity("c", e).ok());
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_THAT(InvariantViolations(*store, "c"), IsEmpty());
}

// One merge operand per write would make every count read merge them all
// (a GEOADD preload of 1M members left 10k per read).
TEST(CollectionsTest, RegistryCountReadsMergeFewOperands) {
  auto store = OpenStore(NewDataDir());
  for (int i = 0; i < 1000; ++i) {
    ASSERT_TRUE(
        store
            ->AddPoints("fleet", {Point(absl::StrCat("e", i), 1'700'000'000'000,
                                        39.9, 116.4)})
            .ok());
  }
  EXPECT_EQ(*store->CollectionSize("fleet"), 1000);
  std::vector<rocksdb::PinnableSlice> operands(1001);
  rocksdb::GetMergeOperandsOptions options;
  options.expected_max_number_of_operands = 1001;
  int count = 0;
  ASSERT_TRUE(store->engine()
                  .db
                  ->GetMergeOperands(rocksdb::ReadOptions(),
                                     store->engine().db->DefaultColumnFamily(),
                                     RegistryKey("fleet"), operands.data(),
                                     &options, &count)
                  .ok());
  EXPECT_LE(count, static_cast<int>(kMaxCounterOperands) + 1);
  EXPECT_THAT(InvariantViolations(*store, "fleet"), IsEmpty());
}

TEST(CollectionsTest, ScanLatestVisitsEveryEntityInOrder) {
  auto store = OpenStore(NewDataDir());
  ASSERT_TRUE(store
                  ->AddPoints("c", {Point("b", 5, 2, 2), Point("a", 1, 1, 1),
                                    Point("a", 9, 3, 3)})
                  .ok());
  ASSERT_TRUE(store->AddPoints("c2", {Point("z", 1, 1, 1)}).ok());
  std::vector<std::pair<std::string, int64_t>> seen;
  ASSERT_TRUE(store
                  ->ScanLatest("c",
                               [&](const model::TrackPoint& p) {
                                 seen.push_back({p.entity, p.loc_time_ms});
                                 return true;
                               })
                  .ok());
  EXPECT_THAT(seen, ElementsAre(Pair("a", 9), Pair("b", 5)));
}

TEST(CollectionsTest, DeleteCollectionRemovesOnlyThatCollection) {
  auto store = OpenStore(NewDataDir());
  ASSERT_TRUE(
      store->AddPoints("fleet", {Point("a", 1, 1, 1), Point("b", 2, 2, 2)})
          .ok());
  // "fleet1" shares the name's bytes as a prefix; it must survive.
  ASSERT_TRUE(store->AddPoints("fleet1", {Point("a", 1, 1, 1)}).ok());
  EXPECT_EQ(*store->DeleteCollection("fleet"), 2);
  EXPECT_EQ(*store->DeleteCollection("fleet"), 0);
  EXPECT_EQ(*store->CollectionSize("fleet"), 0);
  EXPECT_FALSE(store->GetLatest("fleet", "a")->has_value());
  auto page = store->GetTrack({.collection = "fleet", .entity = "a"});
  EXPECT_THAT(page->points, IsEmpty());
  EXPECT_TRUE(store->GetLatest("fleet1", "a")->has_value());
  EXPECT_THAT(InvariantViolations(*store, "fleet"), IsEmpty());
  EXPECT_THAT(InvariantViolations(*store, "fleet1"), IsEmpty());
  // The collection can be written again from scratch.
  ASSERT_TRUE(store->AddPoints("fleet", {Point("c", 1, 1, 1)}).ok());
  EXPECT_EQ(*store->CollectionSize("fleet"), 1);
}

TEST(CollectionsTest, OpeningAVersion1StoreBuildsTheRegistry) {
  const std::string dir = NewDataDir();
  {
    auto store = OpenStore(dir);
    ASSERT_TRUE(
        store->AddPoints("a", {Point("x", 1, 1, 1), Point("y", 1, 1, 1)}).ok());
    ASSERT_TRUE(store->AddPoints("", {Point("x", 1, 1, 1)}).ok());
    ASSERT_TRUE(store->AddPoints("b", {Point("x", 1, 1, 1)}).ok());
    // Make it look like version 1: no registry.
    rocksdb::WriteBatch batch;
    for (const char* c : {"a", "", "b"}) {
      batch.Delete(store->engine().db->DefaultColumnFamily(), RegistryKey(c));
    }
    batch.Put(store->engine().db->DefaultColumnFamily(), kSchemaVersionKey,
              kSchemaVersionWithoutRegistry);
    ASSERT_TRUE(
        store->engine().db->Write(rocksdb::WriteOptions(), &batch).ok());
    // Sizes come from the latest index, derived from `latest`, not from
    // the registry.
    EXPECT_EQ(*store->CollectionSize("a"), 2);
  }
  auto store = OpenStore(dir);
  ASSERT_NE(store, nullptr);
  EXPECT_THAT(Collections(*store),
              ElementsAre(Pair("", 1), Pair("a", 2), Pair("b", 1)));
  std::string version;
  ASSERT_TRUE(store->engine()
                  .db->Get(rocksdb::ReadOptions(), kSchemaVersionKey, &version)
                  .ok());
  EXPECT_EQ(version, kSchemaVersion);
}

// Schema 2 kept a copy of every latest point in a `geo` column family: a
// store of that version opens with its data, without that family, as 3.
TEST(CollectionsTest, OpeningAVersion2StoreDropsTheGeoColumnFamily) {
  const std::string dir = NewDataDir();
  {
    auto store = OpenStore(dir);
    ASSERT_TRUE(
        store->AddPoints("a", {Point("x", 1, 1, 1), Point("x", 2, 2, 2)}).ok());
    rocksdb::DB* db = store->engine().db.get();
    rocksdb::ColumnFamilyHandle* geo = nullptr;
    ASSERT_TRUE(
        db->CreateColumnFamily(rocksdb::ColumnFamilyOptions(), "geo", &geo)
            .ok());
    ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), geo, "k", "v").ok());
    ASSERT_TRUE(db->DestroyColumnFamilyHandle(geo).ok());
    ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), kSchemaVersionKey,
                        kSchemaVersionWithGeo)
                    .ok());
    ASSERT_TRUE(store->Close().ok());
  }
  std::vector<std::string> families;
  ASSERT_TRUE(
      rocksdb::DB::ListColumnFamilies(rocksdb::DBOptions(), dir, &families)
          .ok());
  ASSERT_THAT(families, Contains("geo"));

  auto store = OpenStore(dir);
  ASSERT_NE(store, nullptr);
  std::string version;
  ASSERT_TRUE(store->engine()
                  .db->Get(rocksdb::ReadOptions(), kSchemaVersionKey, &version)
                  .ok());
  EXPECT_EQ(version, kSchemaVersion);
  EXPECT_EQ((*store->GetLatest("a", "x"))->lat, 2);
  EXPECT_THAT(InvariantViolations(*store, "a"), IsEmpty());
  ASSERT_TRUE(store->Close().ok());
  families.clear();
  ASSERT_TRUE(
      rocksdb::DB::ListColumnFamilies(rocksdb::DBOptions(), dir, &families)
          .ok());
  EXPECT_THAT(families, Not(Contains("geo")));
  EXPECT_THAT(families, Contains(kLatestCf));
}

TEST(CollectionsTest, AStoreOfANewerSchemaIsRefused) {
  const std::string dir = NewDataDir();
  {
    auto store = OpenStore(dir);
    ASSERT_TRUE(store->engine()
                    .db->Put(rocksdb::WriteOptions(), kSchemaVersionKey, "99")
                    .ok());
  }
  v1::StorageConfig config;
  auto store = TrackStore::Open(dir, config);
  EXPECT_EQ(store.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(store.status().message(), HasSubstr("schema version 99"));
}

}  // namespace
}  // namespace trackdb::storage
