#include "service/jobs/collection_expirer.h"

#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "model/clock.h"
#include "storage/store_test_util.h"

namespace trackdb::service {
namespace {

// An expired collection nobody touches leaves the store: its points too,
// not only its size.
TEST(CollectionExpirerTest, RemovesExpiredCollectionsUntouched) {
  auto store = storage::testing::OpenStore(storage::testing::NewDataDir());
  ASSERT_TRUE(
      store->AddPoints("soon", {storage::testing::Point("a", 1, 10, 20)}).ok());
  ASSERT_TRUE(
      store->AddPoints("later", {storage::testing::Point("a", 1, 10, 20)})
          .ok());
  ASSERT_TRUE(*store->SetCollectionExpiry("soon", NowMs() + 100));
  ASSERT_TRUE(*store->SetCollectionExpiry("later", NowMs() + 3'600'000));
  CollectionExpirer expirer(store.get(), absl::Milliseconds(20));
  for (int i = 0; i < 200 && expirer.expired() == 0; ++i) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  EXPECT_EQ(expirer.expired(), 1);
  auto latest = store->GetLatest("soon", "a");
  ASSERT_TRUE(latest.ok());
  EXPECT_FALSE(latest->has_value());
  EXPECT_EQ(store->CollectionExpiry("soon"), 0);
  EXPECT_EQ(*store->CollectionSize("later"), 1);
  EXPECT_NE(store->CollectionExpiry("later"), 0);
}

}  // namespace
}  // namespace trackdb::service
