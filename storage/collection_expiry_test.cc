// GEO keys' expiry (storage/collections/collection_expiry.h) through TrackStore.
#include "storage/collections/collection_expiry.h"

#include <string>

#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "storage/strings/kv_expiry.h"
#include "storage/store_test_util.h"
#include "storage/track_store.h"

namespace trackdb::storage {
namespace {

using testing::NewDataDir;
using testing::OpenStore;
using testing::Point;

constexpr int64_t kHour = 3'600'000;

TEST(CollectionExpiry, OnlyAnExistingCollectionGetsOneAndItSurvivesReopen) {
  const std::string dir = NewDataDir();
  const int64_t at = SystemNowMs() + kHour;
  {
    auto store = OpenStore(dir);
    EXPECT_FALSE(*store->SetCollectionExpiry("none", at));
    ASSERT_TRUE(store->AddPoints("g", {Point("a", 1, 10, 20)}).ok());
    EXPECT_TRUE(*store->SetCollectionExpiry("g", at));
    ASSERT_TRUE(store->Close().ok());
  }
  auto store = OpenStore(dir);
  EXPECT_EQ(store->CollectionExpiry("g"), at);
  EXPECT_EQ(store->CollectionExpiry("none"), 0);
  EXPECT_TRUE(*store->SetCollectionExpiry("g", 0));
  EXPECT_EQ(store->CollectionExpiry("g"), 0);
}

// EXPIRE's NX/XX/GT/LT on a GEO key: the condition sees the expiry as it
// is under the collection's lock, and decides whether anything changes.
TEST(CollectionExpiry, SetIfChangesOnlyWhenTheConditionHoldsOnTheCurrentOne) {
  auto store = OpenStore(NewDataDir());
  const int64_t now = SystemNowMs();
  auto never_set = [](int64_t current) { return current == 0; };  // NX
  EXPECT_FALSE(*store->SetCollectionExpiryIf("g", now + kHour, now, never_set));
  ASSERT_TRUE(store->AddPoints("g", {Point("a", 1, 10, 20)}).ok());
  EXPECT_TRUE(*store->SetCollectionExpiryIf("g", now + kHour, now, never_set));
  EXPECT_EQ(store->CollectionExpiry("g"), now + kHour);
  // A second NX sees the first's expiry and changes nothing.
  EXPECT_FALSE(
      *store->SetCollectionExpiryIf("g", now + 2 * kHour, now, never_set));
  EXPECT_EQ(store->CollectionExpiry("g"), now + kHour);
  int64_t seen = -1;
  EXPECT_TRUE(*store->SetCollectionExpiryIf("g", now + 3 * kHour, now,
                                            [&](int64_t current) {
                                              seen = current;
                                              return true;
                                            }));
  EXPECT_EQ(seen, now + kHour);
  EXPECT_EQ(store->CollectionExpiry("g"), now + 3 * kHour);
  // A time already past removes the key, when the condition holds.
  EXPECT_FALSE(*store->SetCollectionExpiryIf("g", now - 1, now, never_set));
  EXPECT_EQ(*store->CollectionSize("g"), 1);
  EXPECT_TRUE(*store->SetCollectionExpiryIf("g", now - 1, now,
                                            [](int64_t) { return true; }));
  EXPECT_EQ(*store->CollectionSize("g"), 0);
  EXPECT_EQ(store->CollectionExpiry("g"), 0);
}

TEST(CollectionExpiry, ADueCollectionIsAbsentAndAWriteStartsANewOne) {
  auto store = OpenStore(NewDataDir());
  ASSERT_TRUE(
      store->AddPoints("g", {Point("a", 1, 10, 20), Point("b", 1, 10, 21)})
          .ok());
  ASSERT_TRUE(*store->SetCollectionExpiry("g", SystemNowMs() + 50));
  absl::SleepFor(absl::Milliseconds(100));
  EXPECT_EQ(*store->CollectionSize("g"), 0);
  int seen = 0;
  ASSERT_TRUE(store
                  ->ScanCollections([&](absl::string_view, int64_t) {
                    ++seen;
                    return true;
                  })
                  .ok());
  EXPECT_EQ(seen, 0);
  ASSERT_TRUE(store->AddPoints("g", {Point("c", 2, 10, 22)}).ok());
  EXPECT_EQ(*store->CollectionSize("g"), 1);
  EXPECT_EQ(store->CollectionExpiry("g"), 0);
  EXPECT_FALSE(store->GetLatest("g", "a")->has_value());
  EXPECT_TRUE(store->GetLatest("g", "c")->has_value());
  EXPECT_TRUE(testing::InvariantViolations(*store, "g").empty());
}

TEST(CollectionExpiry, RemovalTakesItAndCopyCarriesIt) {
  auto store = OpenStore(NewDataDir());
  const int64_t at = SystemNowMs() + kHour;
  ASSERT_TRUE(store->AddPoints("g", {Point("a", 1, 10, 20)}).ok());
  ASSERT_TRUE(*store->SetCollectionExpiry("g", at));
  ASSERT_TRUE(store->CopyName("g", "copy", SystemNowMs(), {}).ok());
  EXPECT_EQ(store->CollectionExpiry("copy"), at);
  TrackStore::CopyNameOptions rename;
  rename.remove_source = true;
  ASSERT_TRUE(store->CopyName("copy", "moved", SystemNowMs(), rename).ok());
  EXPECT_EQ(store->CollectionExpiry("moved"), at);
  EXPECT_EQ(store->CollectionExpiry("copy"), 0);

  ASSERT_TRUE(store->DeleteCollection("moved").ok());
  EXPECT_EQ(store->CollectionExpiry("moved"), 0);
  // The last entity's removal empties the key: its expiry goes too.
  ASSERT_TRUE(*store->DeleteEntity("g", "a"));
  EXPECT_EQ(store->CollectionExpiry("g"), 0);
  ASSERT_TRUE(store->AddPoints("g", {Point("a", 1, 10, 20)}).ok());
  EXPECT_EQ(store->CollectionExpiry("g"), 0);
}

// Retention (or racing removals) can empty a collection without clearing
// its expiry: it reads as none, and a new key of the name starts without.
TEST(CollectionExpiry, AStaleExpiryOfAnEmptiedCollectionIsNotInherited) {
  auto store = OpenStore(NewDataDir());
  ASSERT_TRUE(store->AddPoints("g", {Point("a", 1, 10, 20)}).ok());
  ASSERT_TRUE(*store->SetCollectionExpiry("g", SystemNowMs() + kHour));
  // Retention removes the entity the way ExpireEntities does.
  RetentionPolicy policy;
  policy.max_age_ms = 1000;
  policy.expire_latest = true;
  ASSERT_TRUE(store->retention().Set("g", policy).ok());
  ASSERT_EQ(*store->retention().ExpireEntities(SystemNowMs()), 1);
  EXPECT_EQ(store->CollectionExpiry("g"), 0);
  ASSERT_TRUE(store->retention().Set("g", RetentionPolicy()).ok());
  ASSERT_TRUE(store->AddPoints("g", {Point("b", SystemNowMs(), 10, 20)}).ok());
  EXPECT_EQ(store->CollectionExpiry("g"), 0);
  EXPECT_EQ(*store->CollectionSize("g"), 1);
}

TEST(CollectionExpiry, ExpireCollectionsRemovesOnlyTheDue) {
  auto store = OpenStore(NewDataDir());
  ASSERT_TRUE(store->AddPoints("due", {Point("a", 1, 10, 20)}).ok());
  ASSERT_TRUE(store->AddPoints("kept", {Point("a", 1, 10, 20)}).ok());
  ASSERT_TRUE(*store->SetCollectionExpiry("due", SystemNowMs() + 20));
  ASSERT_TRUE(*store->SetCollectionExpiry("kept", SystemNowMs() + kHour));
  absl::SleepFor(absl::Milliseconds(50));
  EXPECT_EQ(*store->ExpireCollections(SystemNowMs()), 1);
  EXPECT_FALSE(store->GetLatest("due", "a")->has_value());
  EXPECT_TRUE(store->GetLatest("kept", "a")->has_value());
}

}  // namespace
}  // namespace trackdb::storage
