// The trimmer's thread applies the store's fence log retention and
// expires entities at start and then every interval, and stops when
// destroyed.

#include "service/jobs/retention_trimmer.h"

#include <memory>
#include <string>

#include "absl/time/clock.h"
#include "fence/fence_test_util.h"
#include "gtest/gtest.h"
#include "storage/store_test_util.h"
#include "storage/track_store.h"

namespace trackdb::service {
namespace {

TEST(RetentionTrimmerTest, TrimsFenceLogsAtStartAndEveryInterval) {
  v1::StorageConfig config;
  config.set_fence_log_max_events(1);
  auto store =
      storage::TrackStore::Open(storage::testing::NewDataDir(), config);
  ASSERT_TRUE(store.ok()) << store.status();
  const v1::Fence depot = fence::testing::CircleFence(40, 116, 500);
  ASSERT_TRUE((*store)->fences().Put(depot).ok());
  int64_t t = 0;
  auto cross = [&](int n) {
    for (int i = 0; i < n; ++i) {
      ASSERT_TRUE((*store)
                      ->AddPoints("fleet", {storage::testing::Point(
                                               "t1", t += 1000,
                                               i % 2 ? 40.01 : 40.0, 116)})
                      .ok());
    }
  };
  cross(4);
  auto oldest = [&] {
    auto page = (*store)->fences().ReadEvents("fleet", 1, 10);
    return page.ok() && !page->events.empty() ? page->events[0].offset : 0;
  };
  RetentionTrimmer trimmer(store->get(), absl::Milliseconds(50));
  const absl::Time deadline = absl::Now() + absl::Seconds(20);
  while (oldest() != 4 && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  EXPECT_EQ(oldest(), 4u);
  cross(2);  // offsets 5, 6
  // The count moves just after the log does.
  while ((oldest() != 6 || trimmer.fence_events_removed() != 5) &&
         absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  EXPECT_EQ(oldest(), 6u) << "a later pass";
  EXPECT_EQ(trimmer.fence_events_removed(), 5u);
}

TEST(RetentionTrimmerTest, ExpiresEntitiesWhoseLatestPointExpired) {
  auto store = storage::TrackStore::Open(storage::testing::NewDataDir(),
                                         v1::StorageConfig());
  ASSERT_TRUE(store.ok()) << store.status();
  const int64_t now = absl::ToUnixMillis(absl::Now());
  ASSERT_TRUE(
      (*store)
          ->AddPoints("fleet",
                      {storage::testing::Point("gone", now - 5000, 1, 2),
                       storage::testing::Point("here", now, 1, 2)})
          .ok());
  ASSERT_TRUE((*store)->retention().Set("fleet", {2000, true}).ok());
  RetentionTrimmer trimmer(store->get(), absl::Milliseconds(50));
  const absl::Time deadline = absl::Now() + absl::Seconds(20);
  while (trimmer.entities_expired() < 1 && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  EXPECT_EQ(trimmer.entities_expired(), 1u);
  EXPECT_EQ(*(*store)->GetLatest("fleet", "gone"), std::nullopt);
  // "here" expires too once it is 2 s old, on a later pass.
  while (trimmer.entities_expired() < 2 && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  EXPECT_EQ(*(*store)->CollectionSize("fleet"), 0);
}

TEST(RetentionTrimmerTest, TrimsHistoriesPastMaxPoints) {
  auto store = storage::TrackStore::Open(storage::testing::NewDataDir(),
                                         v1::StorageConfig());
  ASSERT_TRUE(store.ok()) << store.status();
  for (int64_t t = 1; t <= 5; ++t) {
    ASSERT_TRUE(
        (*store)
            ->AddPoints("fleet", {storage::testing::Point("car", t, 1, 2)})
            .ok());
  }
  ASSERT_TRUE((*store)->retention().Set("fleet", {0, false, 2}).ok());
  RetentionTrimmer trimmer(store->get(), absl::Milliseconds(50));
  const absl::Time deadline = absl::Now() + absl::Seconds(20);
  while (trimmer.points_trimmed() < 3 && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  EXPECT_EQ(trimmer.points_trimmed(), 3u);
}

}  // namespace
}  // namespace trackdb::service
